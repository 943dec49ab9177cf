"""`CheckpointStore`: snapshots of a workspace in a shadow git repository, diffs, rewind.

A snapshot is a commit of a git repository of our own (`git_dir`, kept with the
conversation), whose work tree is the workspace. The workspace's own `.git`, index, hooks
and branches are never used (see `git.py`); a workspace that is not a git repository works
the same. What a snapshot leaves out: files its `.gitignore` files ignore, the settings' `exclude`
patterns (caches and dependency folders by default), files larger than `max_file_bytes`,
folders that are git repositories of their own, and the paths given as `exclude` (the
conversations folder, when it lies inside the workspace).

A snapshot costs one `git status` (its index keeps each file's stat data, so unchanged files
are not read) plus, when something changed, one `git add` of just the changed paths; then a
tree and a commit are written. `bench/checkpoints.py` measures it.

One process owns a store at a time (the conversation's): lock files left by a process that
died are removed when the store is first used.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from openhands.sdk.workspace.agent_files import agent_files
from openhands.sdk.workspace.checkpoints.errors import (
    CheckpointError,
    CheckpointLimitError,
    UnknownCheckpointError,
    WorkspaceChangingError,
)
from openhands.sdk.workspace.checkpoints.git import Git, nul_join, nul_split
from openhands.sdk.workspace.checkpoints.models import (
    MAX_LISTED_CHANGES,
    ChangeKind,
    Checkpoint,
    CheckpointDiff,
    CheckpointSettings,
    FileChange,
    RewindResult,
)
from openhands.sdk.workspace.checkpoints.restore import remove_paths, restore_paths
from openhands.sdk.workspace.sandbox import view_plan

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""git's id of the empty tree: the base of a diff against "nothing yet"."""

SNAPSHOT_TRIES = 3
"""How often a snapshot is tried while files change under it before it gives up."""

BRANCH = "checkpoints"
"""The shadow repository's one branch; each snapshot is a commit on it."""

_HEX = frozenset("0123456789abcdef")
_CONFIG = (
    ("core.untrackedCache", "true"),
    ("core.autocrlf", "false"),
    ("core.safecrlf", "false"),
    ("core.quotePath", "false"),
    ("core.hooksPath", os.devnull),
    ("core.excludesFile", os.devnull),
    ("core.fsmonitor", "false"),
    ("commit.gpgSign", "false"),
    ("gc.auto", "0"),
    ("advice.addEmbeddedRepo", "false"),
)


def _append_config(path: Path) -> None:
    """Add `_CONFIG` to a new repository's config file in one write: one `git config` per
    key cost ten processes per new conversation. git reads a section given twice as one."""
    sections: dict[str, list[str]] = {}
    for key, value in _CONFIG:
        section, name = key.split(".", 1)
        sections.setdefault(section, []).append(f"\t{name} = {value}\n")
    text = "".join(f"[{section}]\n" + "".join(lines) for section, lines in sections.items())
    try:
        with open(path, "a", encoding="utf-8") as config:
            config.write(text)
    except OSError as exc:
        raise CheckpointError(
            f"Cannot configure the checkpoint repository {path.parent}: {exc}"
        ) from exc


class CheckpointStore:
    """Snapshots of `work_tree` kept in the shadow repository at `git_dir` (see the module
    docstring); limits from `settings` (default: `CheckpointSettings.from_env()`)."""

    def __init__(
        self,
        git_dir: Path,
        work_tree: Path,
        settings: CheckpointSettings | None = None,
        *,
        exclude: tuple[Path, ...] = (),
    ) -> None:
        """Use (and create on the first snapshot) the shadow repository at `git_dir`."""
        self.git_dir = Path(git_dir).absolute()
        self.work_tree = Path(work_tree).absolute()
        self.settings = settings or CheckpointSettings.from_env()
        self._exclude = (self.git_dir, *(Path(p).absolute() for p in exclude))
        self._git: Git | None = None
        self._known_head: str | None = None  # the branch's commit once read or written here
        self._excludes = ""  # the exclude file as last written
        self._lock = threading.RLock()

    # -- snapshots ------------------------------------------------------------------------

    def snapshot(self, label: str, *, goal_round: int | None = None) -> Checkpoint:
        """Record the workspace as it is now; the checkpoint says what changed since the
        previous one. Raises `CheckpointLimitError` when too many files would be added, and
        `WorkspaceChangingError` when files keep vanishing or changing while they are
        recorded (a process is still writing: tried `SNAPSHOT_TRIES` times)."""
        with self._lock:
            for attempt in range(1, SNAPSHOT_TRIES + 1):
                try:
                    return self._snapshot(label, goal_round)
                except WorkspaceChangingError:
                    if attempt == SNAPSHOT_TRIES:
                        raise
        raise AssertionError("unreachable")

    def _snapshot(self, label: str, goal_round: int | None) -> Checkpoint:
        git = self._ready()
        self._write_excludes()
        parent = self._head(git)
        status = git.run(
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules=all",
        )
        plan = _Plan.from_status(status, self.work_tree, self.settings.max_file_bytes)
        if len(plan.add) > self.settings.max_files:
            raise CheckpointLimitError(
                f"A snapshot of {self.work_tree} would record {len(plan.add)} files, more "
                f"than max_files ({self.settings.max_files}): ignore build output and "
                "dependency folders in a .gitignore, or raise OH_CHECKPOINT_MAX_FILES."
            )
        if plan.add:
            try:
                git.run(
                    "add",
                    "-A",
                    "--pathspec-from-file=-",
                    "--pathspec-file-nul",
                    stdin=nul_join(plan.add),
                )
            except CheckpointError as exc:
                # A file listed a moment ago vanished, or a folder became a link: the
                # workspace is changing under us.
                raise WorkspaceChangingError(
                    f"The workspace {self.work_tree} changed while it was recorded "
                    f"({exc}): a process in it is still writing. Stop it (or wait for "
                    "it to finish), then retry."
                ) from exc
        if plan.untrack:
            git.run(
                "rm",
                "--cached",
                "-q",
                "--ignore-unmatch",
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
                stdin=nul_join(plan.untrack),
            )
        tree = git.text("write-tree")
        checkpoint = Checkpoint(
            id="0" * 40,
            label=label,
            created_at=datetime.now(UTC),
            parent=parent,
            goal_round=goal_round,
            changed=len(plan.changes),
            changes=plan.changes[:MAX_LISTED_CHANGES],
            skipped=plan.skipped[:MAX_LISTED_CHANGES],
        )
        args = ["commit-tree", tree, "-F", "-"]
        if parent is not None:
            args[2:2] = ["-p", parent]
        commit = git.run(*args, stdin=_message(checkpoint).encode()).decode().strip()
        ref = ["update-ref", f"refs/heads/{BRANCH}", commit]
        git.run(*(ref if parent is None else [*ref, parent]))
        self._known_head = commit
        return checkpoint.model_copy(update={"id": commit})

    def list(self, limit: int | None = None) -> list[Checkpoint]:
        """The checkpoints, oldest first (the newest `limit` when given)."""
        with self._lock:
            if not self._exists():
                return []
            git = self._ready()
            if self._head(git) is None:
                return []
            args = ["log", "--format=%H%x1f%P%x1f%B%x1e"]
            if limit is not None:
                args.append(f"--max-count={max(1, limit)}")
            records = git.run(*args, BRANCH).decode(errors="replace").split("\x1e")
        found = [_parse(record) for record in records if record.strip()]
        return list(reversed(found))

    def get(self, checkpoint_id: str) -> Checkpoint:
        """The checkpoint `checkpoint_id` names (its full id or a prefix of 7 or more hex
        digits); `UnknownCheckpointError` when this store has none."""
        with self._lock:
            commit = self._resolve(checkpoint_id)
            body = self._ready().run("log", "-1", "--format=%H%x1f%P%x1f%B", commit)
        return _parse(body.decode(errors="replace"))

    def latest(self) -> Checkpoint | None:
        """The newest checkpoint, or None before the first."""
        newest = self.list(limit=1)
        return newest[0] if newest else None

    # -- diffs ----------------------------------------------------------------------------

    def diff(
        self, target: str, base: str | None = None, *, from_empty: bool = False
    ) -> CheckpointDiff:
        """What changed from `base` to `target` (default base: the checkpoint before
        `target`; `from_empty=True`: everything in `target`)."""
        with self._lock:
            git = self._ready()
            to_commit = self._resolve(target)
            if from_empty:
                base_commit = None
            elif base is not None:
                base_commit = self._resolve(base)
            else:
                base_commit = self.get(to_commit).parent
            older = base_commit or EMPTY_TREE
            summary = git.run(
                "diff",
                "--no-renames",
                "--no-ext-diff",
                "--raw",
                "--numstat",
                "-z",
                older,
                to_commit,
            )
            files = _files(summary)
            patch, truncated = self._patch(git, older, to_commit)
        return CheckpointDiff(
            base=base_commit, target=to_commit, files=files, patch=patch, truncated=truncated
        )

    def _patch(self, git: Git, older: str, newer: str) -> tuple[str, bool]:
        """The unified diff, read only up to `max_diff_chars` (a huge diff is never held)."""
        limit = self.settings.max_diff_chars
        args = ["diff", "--no-color", "--no-ext-diff", "--no-renames", "-U3", older, newer]
        with subprocess.Popen(
            [git.executable, *args],
            cwd=self.work_tree,
            env=git.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        ) as process:
            assert process.stdout is not None
            data = process.stdout.read(limit + 1)
            truncated = len(data) > limit
            if truncated:
                process.kill()
            process.wait()
        text = data[:limit].decode(errors="replace")
        if truncated:
            text = text[: text.rfind("\n") + 1]  # whole lines only
        return text, truncated

    # -- rewind ---------------------------------------------------------------------------

    def rewind(self, checkpoint_id: str) -> RewindResult:
        """Make the workspace match checkpoint `checkpoint_id` again.

        The workspace is snapshot first (`before`: rewind to it to undo this), then the
        files that differ are written back and the files made since are deleted; files the
        snapshots leave out (ignored, too large) are not touched. A last snapshot (`after`)
        records the result.
        """
        with self._lock:
            target = self.get(checkpoint_id)
            git = self._ready()
            before = self.snapshot(f"before rewind to {target.label}")
            changed = git.run("diff", "--no-renames", "--name-status", "-z", before.id, target.id)
            restore: list[str] = []
            delete: list[str] = []
            fields = nul_split(changed)
            for letter, path in zip(fields[::2], fields[1::2], strict=False):
                (delete if letter.startswith("D") else restore).append(path)
            # Deletions first: a folder may have to give way to a file of the same name.
            # Both through AgentFiles: the workspace is the agent's, its links are not ours.
            files = agent_files(self.work_tree)
            remove_paths(files, self.work_tree, delete)
            restore_paths(git, files, target.id, restore)
            after = self.snapshot(f"rewound to {target.label}")
        return RewindResult(
            checkpoint=target.id,
            label=target.label,
            before=before.id,
            after=after.id,
            restored=restore,
            deleted=delete,
        )

    # -- the repository -------------------------------------------------------------------

    def _exists(self) -> bool:
        return (self.git_dir / "HEAD").is_file()

    def _ready(self) -> Git:
        """The git runner, creating the shadow repository the first time."""
        if self._git is not None:
            return self._git
        if not self.work_tree.is_dir():
            raise CheckpointError(f"The workspace {self.work_tree} is not a folder.")
        git = Git(self.git_dir, self.work_tree)
        fresh = not self._exists()
        try:
            self.git_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise CheckpointError(
                f"Cannot create the checkpoint repository {self.git_dir}: {exc.strerror}"
            ) from exc
        if fresh:
            git.run("init", "-q", f"--initial-branch={BRANCH}")
            _append_config(self.git_dir / "config")
        else:
            self._remove_stale_locks()
        self._write_excludes()
        self._git = git
        return git

    def _remove_stale_locks(self) -> None:
        # Only this process uses the store: a lock file now is left from a process that died.
        for lock in (self.git_dir / "index.lock", self.git_dir / "HEAD.lock"):
            lock.unlink(missing_ok=True)
        heads = self.git_dir / "refs" / "heads"
        for lock in heads.glob("*.lock") if heads.is_dir() else ():
            lock.unlink(missing_ok=True)

    def _write_excludes(self) -> None:
        lines = ["# Written by OpenHands: what checkpoints never record."]
        lines.extend(pattern for pattern in self.settings.exclude if "\n" not in pattern)
        # What the agent's sandbox hides inside the workspace (the server's own folders)
        # is never recorded: a diff or a rewind would hand it to the agent.
        hidden = [Path(p) for p, kind in view_plan(self.work_tree).mounts if kind == "hidden"]
        for path in (*self._exclude, *hidden):
            try:
                relative = path.relative_to(self.work_tree)
            except ValueError:
                continue  # outside the workspace: never seen anyway
            if str(relative) != ".":
                lines.append("/" + _escape(relative.as_posix()))
        text = "\n".join(lines) + "\n"
        if text == self._excludes:
            return
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        (info / "exclude").write_text(text)
        self._excludes = text

    def _head(self, git: Git) -> str | None:
        if self._known_head is not None:
            return self._known_head  # only this store writes the branch
        out = git.run("rev-parse", "-q", "--verify", f"refs/heads/{BRANCH}", ok_codes=(0, 1))
        self._known_head = out.decode().strip() or None
        return self._known_head

    def _resolve(self, checkpoint_id: str) -> str:
        """The full commit id of a checkpoint id or prefix (hex digits only)."""
        key = checkpoint_id.strip().lower()
        if not 7 <= len(key) <= 40 or not set(key) <= _HEX:
            raise UnknownCheckpointError(
                f"{checkpoint_id!r} is not a checkpoint id (7 to 40 hex digits)."
            )
        if not self._exists():
            raise UnknownCheckpointError(f"No checkpoint {checkpoint_id}: none was taken yet.")
        git = self._ready()
        found = git.run("rev-parse", "-q", "--verify", f"{key}^{{commit}}", ok_codes=(0, 1))
        commit = found.decode().strip()
        if not commit:
            raise UnknownCheckpointError(
                f"No checkpoint {checkpoint_id} in this workspace's store."
            )
        return commit


class _Plan:
    """What one snapshot records, from `git status`: the paths to add or drop, the changes."""

    def __init__(self) -> None:
        self.add: list[str] = []
        self.untrack: list[str] = []
        self.changes: list[FileChange] = []
        self.skipped: list[str] = []

    @classmethod
    def from_status(cls, status: bytes, work_tree: Path, max_bytes: int) -> _Plan:
        plan = cls()
        for entry in nul_split(status):
            code, path = entry[:2], entry[3:]
            if path.endswith("/"):
                continue  # a folder that is a git repository of its own: left out
            tracked = code != "??"
            if code[1] != "D" and code[0] != "D" and _too_large(work_tree / path, max_bytes):
                plan.skipped.append(path)
                if tracked:
                    plan.untrack.append(path)
                    plan.changes.append(FileChange(path=path, change="deleted"))
                continue
            if code[1] != " ":  # else the index already holds it (staged by a rewind)
                plan.add.append(path)
            change = _change_kind(code)
            if change is not None:
                plan.changes.append(FileChange(path=path, change=change))
        return plan


def _change_kind(code: str) -> ChangeKind | None:
    """The change against the previous snapshot a two-letter status code means."""
    index, worktree = code[0], code[1]
    if code == "??" or index == "A":
        return None if worktree == "D" else "added"  # "AD": added, then deleted again
    if "D" in code:
        return "deleted"
    return "modified"


def _too_large(path: Path, max_bytes: int) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size > max_bytes


def _escape(pattern: str) -> str:
    """A path as a literal gitignore pattern."""
    escaped = "".join("\\" + ch if ch in "*?[]\\!#" else ch for ch in pattern)
    return escaped.replace(" ", "\\ ") if escaped.endswith(" ") else escaped


def _message(checkpoint: Checkpoint) -> str:
    """The commit message: the label, then the checkpoint's details as JSON."""
    details = checkpoint.model_dump(
        mode="json", include={"created_at", "goal_round", "changed", "changes", "skipped"}
    )
    label = " ".join(checkpoint.label.split()) or "checkpoint"
    return f"{label}\n\n{json.dumps(details, separators=(',', ':'))}\n"


def _parse(record: str) -> Checkpoint:
    """A checkpoint from a `git log --format=%H%x1f%P%x1f%B` record."""
    commit, parents, body = ([*record.strip("\n").split("\x1f", 2), "", ""])[:3]
    label, _, rest = body.strip().partition("\n")
    details: dict[str, Any] = {}
    try:
        loaded = json.loads(rest.strip() or "{}")
        details = loaded if isinstance(loaded, dict) else {}
    except ValueError:
        pass
    parent = parents.split()[0] if parents.split() else None
    details.setdefault("created_at", datetime.now(UTC).isoformat())
    return Checkpoint.model_validate(
        {**details, "id": commit.strip(), "label": label.strip(), "parent": parent}
    )


def _files(summary: bytes) -> list[FileChange]:
    """Changed files from `git diff --raw --numstat -z`: raw records, then numstat ones."""
    fields = summary.split(b"\0")
    kinds: dict[str, ChangeKind] = {}
    order: list[str] = []
    counts: dict[str, tuple[int | None, int | None]] = {}
    index = 0
    while index < len(fields):
        field = fields[index]
        if field.startswith(b":"):  # ":100644 100644 abc def M" then the path
            letter = field.split()[-1][:1].decode()
            path = fields[index + 1].decode(errors="surrogateescape")
            kinds[path] = "added" if letter == "A" else "deleted" if letter == "D" else "modified"
            order.append(path)
            index += 2
        elif field:
            added, removed, path_bytes = ([*field.split(b"\t", 2), b"", b""])[:3]
            path = path_bytes.decode(errors="surrogateescape")
            counts[path] = (_count(added), _count(removed))
            index += 1
        else:
            index += 1
    return [
        FileChange(
            path=path,
            change=kinds[path],
            additions=counts.get(path, (None, None))[0],
            deletions=counts.get(path, (None, None))[1],
        )
        for path in order
    ]


def _count(raw: bytes) -> int | None:
    return int(raw) if raw.isdigit() else None


__all__ = ["BRANCH", "EMPTY_TREE", "CheckpointStore"]
