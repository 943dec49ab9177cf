"""The git questions of the git routes, answered INSIDE the asking workspace's sandbox.

Standard library only: `services/git_reader.py` runs it as `python -I -S git_script.py
REQUEST_JSON` through the sandbox of the workspace concerned, so whatever a repository's
configuration makes git run (an fsmonitor, a filter, a diff driver, a hook) runs at most with
the agent's own power, never in the server's process. Each git call also neutralises every
such setting (`git_core.NEUTRAL`), and no transport may be used (no network).

The request is `{"op": ..., ...}`; the answer, one JSON line on stdout, is `{"ok": value}` or
`{"error": {"kind": "not_repo" | "path" | "command", "message": ...}}`.

ops: `changes` (folder, ref), `diff` (file, ref), `commit_diff` (file, commit), `commits`
(folder, limit), `commit_changes` (folder, commit), `repo_info` (folder), and `delta`
(folder, base_ref, excludes): the work tree as a binary patch against its base, written to
stdout while the answer (the base commit) goes to stderr's last line.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openhands.agent_server.services.git_core import (
        EMPTY_TREE,
        GIT_TIMEOUT,
        MAX_DIFF_BYTES,
        Repo,
        name_status,
        repo_at,
        rev,
    )
    from openhands.agent_server.services.git_core import _GitFailure as GitFailure
else:  # run with -I, Python leaves this folder out of the path: the core is beside the script
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    _core = importlib.import_module("git_core")
    EMPTY_TREE, GIT_TIMEOUT, MAX_DIFF_BYTES = (
        _core.EMPTY_TREE,
        _core.GIT_TIMEOUT,
        _core.MAX_DIFF_BYTES,
    )
    GitFailure, Repo = _core._GitFailure, _core.Repo
    name_status, repo_at, rev = _core.name_status, _core.repo_at, _core.rev


def _base(repo: Repo, ref: str | None) -> str:
    """The commit a change list compares with: `ref`, else the branch's display base."""
    if ref is not None:
        found = rev(repo, f"{ref}^{{commit}}")
        if found is not None:
            return found
        if ref == "HEAD":  # no commit yet on this branch: everything is new
            return EMPTY_TREE
        raise GitFailure("command", f"ref {ref!r} does not name a commit in this repository")
    if repo.probe("rev-list", "-n", "1", "--all") is None:
        return EMPTY_TREE
    head = rev(repo, "HEAD")
    branch = repo.probe("symbolic-ref", "--quiet", "--short", "HEAD")
    if branch is not None:
        upstream = rev(repo, f"refs/remotes/origin/{branch}")
        if upstream is not None:
            try:
                clean = not repo.run("status", "--porcelain", "--untracked-files=no")
            except GitFailure:
                clean = False  # unknown: keep comparing with the upstream
            if not (upstream == head and clean):
                return upstream
    default = repo.probe("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if default is not None:
        fork_point = repo.probe("merge-base", "HEAD", default)
        return fork_point or rev(repo, default) or head or EMPTY_TREE
    for local in ("main", "master"):
        tip = rev(repo, f"refs/heads/{local}")
        if tip is not None:
            if local != branch and repo.probe("merge-base", "HEAD", tip) == tip:
                return tip
            break
    return head or EMPTY_TREE


def _changes_in(folder: str, ref: str | None) -> list[list[str]]:
    repo = repo_at(folder)
    base = _base(repo, ref)
    changed = name_status(repo.run("diff", "--name-status", "-z", "--relative", base, raw=True))
    untracked = repo.probe("ls-files", "-z", "--others", "--exclude-standard") or ""
    changed += [["ADDED", path] for path in untracked.split("\0") if path]
    return changed


def changes(folder: str, ref: str | None) -> list[list[str]]:
    """What changed under `folder` (and in the repositories one level below it)."""
    nested = (
        sorted(
            entry.name
            for entry in os.scandir(folder)
            if entry.is_dir(follow_symlinks=False)
            and os.path.lexists(os.path.join(folder, entry.name, ".git"))
        )
        if os.path.isdir(folder)
        else []
    )
    try:
        found = _changes_in(folder, ref)
    except GitFailure as failure:
        if failure.kind != "not_repo" or not nested:
            raise
        found = []
    found = [c for c in found if not any(_inside(c[1], name) for name in nested)]
    for name in nested:
        try:
            inner = _changes_in(os.path.join(folder, name), ref)
        except GitFailure:
            continue
        found += [[status, f"{name}/{path}"] for status, path in inner]
    return sorted(found, key=lambda change: change[1])


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def _closestrepo_at(path: str) -> tuple[Repo, str]:
    """The repository holding `path` (which may no longer exist) and its root."""
    folder = os.path.dirname(path)
    while not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    repo = repo_at(folder)
    root = repo.run("rev-parse", "--show-toplevel")
    repo.folder = root
    return repo, root


def _blob(repo: Repo, rev: str, relative: str) -> str | None:
    spec = f"{rev}:{relative}"
    size = repo.probe("cat-file", "-s", "--end-of-options", spec)
    if size is None:
        return None
    if int(size) > MAX_DIFF_BYTES:
        raise GitFailure("path", f"{relative} is too large to diff ({size} bytes)")
    return repo.run("cat-file", "blob", spec, raw=True)


def _lines(text: str) -> str:
    return "\n".join(text.splitlines())


def diff(path: str, ref: str | None) -> dict[str, str]:
    """`path` at the base (`original`) and on disk now (`modified`)."""
    repo, root = _closestrepo_at(path)
    relative = os.path.relpath(path, root)
    if relative.startswith(".."):
        raise GitFailure("path", f"{path} is not inside the repository at {root}")
    original = _blob(repo, _base(repo, ref), relative)
    if not os.path.lexists(path):
        if original is None:
            raise GitFailure("path", f"{path} does not exist")
        return {"original": _lines(original), "modified": ""}
    if not os.path.isfile(path):
        raise GitFailure("path", f"{path} is not a file")
    if os.path.getsize(path) > MAX_DIFF_BYTES:
        raise GitFailure("path", f"{path} is too large to diff")
    with open(path, "rb") as handle:
        modified = handle.read().decode(errors="replace")
    return {"original": _lines(original or ""), "modified": _lines(modified)}


def _commit(repo: Repo, commit: str) -> str:
    found = rev(repo, f"{commit}^{{commit}}")
    if found is None:
        raise GitFailure("command", f"{commit!r} does not name a commit in this repository")
    return found


def commit_diff(path: str, commit: str) -> dict[str, str]:
    """`path` at the commit's first parent (`original`) and at the commit (`modified`)."""
    repo, root = _closestrepo_at(path)
    relative = os.path.relpath(path, root)
    if relative.startswith(".."):
        raise GitFailure("path", f"{path} is not inside the repository at {root}")
    sha = _commit(repo, commit)
    parent = rev(repo, f"{sha}^") or EMPTY_TREE
    return {
        "original": _blob(repo, parent, relative) or "",
        "modified": _blob(repo, sha, relative) or "",
    }


def commits(folder: str, limit: int) -> dict[str, object]:
    """The newest `limit` commits reachable from HEAD."""
    repo = repo_at(folder)
    head = rev(repo, "HEAD")
    if head is None:
        return {"commits": [], "has_more": False}
    out = repo.run(
        "log",
        "--no-show-signature",
        "--format=%H%x1f%h%x1f%an%x1f%aI%x1f%s%x1e",
        "-n",
        str(limit + 1),
        head,
    )
    found = []
    for record in out.split("\x1e"):
        fields = record.strip("\n").split("\x1f")
        if len(fields) == 5:
            sha, short, author, stamp, subject = fields
            found.append(
                {
                    "sha": sha,
                    "short_sha": short,
                    "subject": subject,
                    "author": author,
                    "timestamp": stamp,
                }
            )
    return {"commits": found[:limit], "has_more": len(found) > limit}


def commit_changes(folder: str, commit: str) -> list[list[str]]:
    """The files `commit` changed compared with its first parent."""
    repo = repo_at(folder)
    sha = _commit(repo, commit)
    parent = rev(repo, f"{sha}^") or EMPTY_TREE
    return name_status(repo.run("diff", "--name-status", "-z", parent, sha, raw=True))


def _export_base(repo: Repo, ref: str | None) -> str:
    """What a patch applies to: `ref`, else HEAD when detached, else the branch's upstream,
    origin's default branch (or the fork point from it), else the empty tree."""
    if ref is not None:
        found = rev(repo, f"{ref}^{{commit}}")
        if found is None:
            raise GitFailure("command", f"base_ref {ref!r} could not be resolved")
        return found
    head = rev(repo, "HEAD")
    if head is None:
        return EMPTY_TREE
    branch = repo.probe("symbolic-ref", "--quiet", "--short", "HEAD")
    if branch is None:
        return head  # a pinned checkout: the patch applies to the commit itself
    upstream = rev(repo, f"refs/remotes/origin/{branch}")
    if upstream is not None:
        return upstream
    default = repo.probe("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if default is not None:
        return repo.probe("merge-base", "HEAD", default) or rev(repo, default) or EMPTY_TREE
    return EMPTY_TREE


def _pathspecs(excludes: list[str]) -> list[str]:
    """The excludes as git pathspecs (gitignore-like, as the tar.gz applies them)."""
    specs: list[str] = []
    for raw in excludes:
        only_dirs = raw.endswith("/")
        pattern = raw.rstrip("/")
        if not pattern:
            continue
        prefix = "" if "/" in pattern else "**/"
        if not only_dirs:
            specs.append(f":(glob,exclude){prefix}{pattern}")
        specs.append(f":(glob,exclude){prefix}{pattern}/**")
    return specs


def delta(folder: str, base_ref: str | None, excludes: list[str]) -> str:
    """Write the work tree's changes against the base to stdout; the base commit ("" for
    the empty tree). A scratch index is used: the repository's own is never touched."""
    repo = repo_at(folder)
    base = _export_base(repo, base_ref)
    scratch = tempfile.mkdtemp(prefix="oh-delta-")
    try:
        repo.env["GIT_INDEX_FILE"] = os.path.join(scratch, "index")
        specs = _pathspecs(excludes)
        repo.run("read-tree", base)
        repo.run("add", "-A", "--", ".", *specs)
        argv = ["git", "--no-pager"]
        for setting in repo.settings:
            argv += ["-c", setting]
        sys.stdout.flush()
        done = subprocess.run(
            [
                *argv,
                "diff",
                "--binary",
                "--no-ext-diff",
                "--no-textconv",
                "--cached",
                base,
                "--",
                ".",
                *specs,
            ],
            cwd=repo.folder,
            env=repo.env,
            stdout=sys.stdout.fileno(),
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            timeout=GIT_TIMEOUT * 10,
        )
        if done.returncode != 0:
            raise GitFailure("command", done.stderr.decode(errors="replace").strip()[-500:])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return "" if base == EMPTY_TREE else base


def repo_info(folder: str) -> dict[str, str]:
    """The repository's identity: its root, origin's URL, branch and HEAD (what exists)."""
    repo = repo_at(folder)
    found = {"root": repo.run("rev-parse", "--show-toplevel")}
    remote = repo.probe("remote", "get-url", "origin")
    head = rev(repo, "HEAD")
    branch = repo.probe("rev-parse", "--abbrev-ref", "HEAD")
    if remote:
        found["remote"] = remote
    if head:
        found["head"] = head
    if branch:
        found["branch"] = "DETACHED" if branch == "HEAD" else branch
    return found


def answer(request: dict[str, object]) -> object:
    """The answer to one request (see the module docstring)."""
    op = request["op"]
    if op == "changes":
        return changes(str(request["path"]), request.get("ref"))  # type: ignore[arg-type]
    if op == "diff":
        return diff(str(request["path"]), request.get("ref"))  # type: ignore[arg-type]
    if op == "commit_diff":
        return commit_diff(str(request["path"]), str(request["commit"]))
    if op == "commits":
        return commits(str(request["path"]), int(request["limit"]))  # type: ignore[arg-type]
    if op == "commit_changes":
        return commit_changes(str(request["path"]), str(request["commit"]))
    if op == "repo_info":
        return repo_info(str(request["path"]))
    if op == "delta":
        excludes = [str(item) for item in request.get("excludes") or []]  # type: ignore[union-attr]
        return delta(str(request["path"]), request.get("base_ref"), excludes)  # type: ignore[arg-type]
    raise GitFailure("command", f"unknown op {op!r}")


def main() -> None:
    """Answer the request in argv[1] on stdout (on stderr for `delta`, whose stdout is the
    patch)."""
    request = json.loads(sys.argv[1])
    try:
        result: dict[str, object] = {"ok": answer(request)}
    except GitFailure as failure:
        result = {"error": {"kind": failure.kind, "message": failure.message}}
    except OSError as exc:
        result = {"error": {"kind": "path", "message": str(exc)}}
    out = sys.stderr if request.get("op") == "delta" else sys.stdout
    out.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
