"""The core of the git script run inside a sandbox: git with its program-running settings
turned off, and the failures the server maps to answers.

Standard library only: `git_script.py` (run as `python -I -S`) imports it from its own
folder. Every git call neutralises each setting that would make a read run a program (see
`NEUTRAL` and the repository's filter drivers), and no transport may be used (no network).
"""

from __future__ import annotations

import os
import subprocess

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
MAX_DIFF_BYTES = 1024 * 1024
GIT_TIMEOUT = 30.0

NEUTRAL = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.sshCommand=false",
    "core.askPass=",
    "core.editor=false",
    "core.attributesFile=/dev/null",
    "core.untrackedCache=false",
    "credential.helper=",
    "diff.external=",
    "protocol.allow=never",
    "log.showSignature=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "safe.directory=*",
)
"""Settings that make a read-only git call run something, turned off on every call."""


class _GitFailure(Exception):
    """A question git cannot answer; `kind` says which answer the server gives."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "SSH_"))}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ATTR_NOSYSTEM="1",
        GIT_OPTIONAL_LOCKS="0",  # a read must not write the index (nor need to)
        GIT_TERMINAL_PROMPT="0",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_PAGER="cat",
        PAGER="cat",
        LC_ALL="C",
    )
    return env


class Repo:
    """git in one folder, with the neutral settings plus the repository's filters disabled."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.env = _environment()
        self.settings = list(NEUTRAL)
        self.settings += self._disabled_filters()

    def run(self, *args: str, check: bool = True, raw: bool = False) -> str:
        """git's stdout (stripped unless `raw`); _GitFailure("command") when it fails."""
        argv = ["git", "--no-pager"]
        for setting in self.settings:
            argv += ["-c", setting]
        argv += list(args)
        try:
            done = subprocess.run(
                argv,
                cwd=self.folder,
                env=self.env,
                capture_output=True,
                timeout=GIT_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise _GitFailure("command", f"git {args[0]} took over {GIT_TIMEOUT:g} s") from None
        except OSError as exc:
            raise _GitFailure("command", f"git cannot run: {exc}") from None
        if check and done.returncode != 0:
            stderr = done.stderr.decode(errors="replace").strip()
            raise _GitFailure("command", f"git {args[0]} failed: {stderr[-500:]}")
        out = done.stdout.decode(errors="replace")
        return out if raw else out.strip()

    def probe(self, *args: str) -> str | None:
        """git's stdout, or None when it fails."""
        try:
            return self.run(*args) or None
        except _GitFailure:
            return None

    def _disabled_filters(self) -> list[str]:
        # A clean/smudge filter runs when git compares a work-tree file: find the repository's
        # drivers (include files followed) and blank every command they name.
        listed = self.probe_plain(
            "config", "--includes", "--name-only", "--get-regexp", r"^filter\."
        )
        names = {line.rsplit(".", 1)[0] for line in (listed or "").splitlines() if line}
        settings: list[str] = []
        for name in sorted(names):
            settings += [f"{name}.clean=", f"{name}.smudge=", f"{name}.process="]
            settings.append(f"{name}.required=false")
        return settings

    def probe_plain(self, *args: str) -> str | None:
        """A call before the filters are known (config reads run no filter)."""
        argv = ["git", "--no-pager"]
        for setting in NEUTRAL:
            argv += ["-c", setting]
        try:
            done = subprocess.run(
                [*argv, *args],
                cwd=self.folder,
                env=self.env,
                capture_output=True,
                timeout=GIT_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.decode(errors="replace") if done.returncode == 0 else None


def repo_at(folder: str) -> Repo:
    """git in `folder`; _GitFailure("not_repo") when it is in no repository."""
    if not os.path.isdir(folder):
        raise _GitFailure("not_repo", f"{folder} is not a folder")
    repo = Repo(folder)
    if repo.probe("rev-parse", "--git-dir") is None:
        raise _GitFailure("not_repo", f"{folder} is not in a git repository")
    return repo


def rev(repo: Repo, ref: str) -> str | None:
    """`ref` as a commit id, or None when it names none."""
    return repo.probe("rev-parse", "--verify", "--quiet", "--end-of-options", ref)


def name_status(output: str) -> list[list[str]]:
    """`git diff --name-status -z` as [status, path] pairs (a rename: DELETED + ADDED)."""
    fields = output.split("\0")
    changes: list[list[str]] = []
    at = 0
    while at < len(fields) and fields[at]:
        code = fields[at]
        if code[0] in "RC":
            old, new = fields[at + 1], fields[at + 2]
            if code[0] == "R":
                changes.append(["DELETED", old])
            changes.append(["ADDED", new])
            at += 3
            continue
        status = {"A": "ADDED", "D": "DELETED", "M": "UPDATED", "U": "UPDATED", "T": "UPDATED"}
        changes.append([status.get(code[0], "UPDATED"), fields[at + 1]])
        at += 2
    return changes
