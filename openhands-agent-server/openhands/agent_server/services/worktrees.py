"""Git worktrees the server makes for conversations (a child's `isolation: worktree`), and
their removal with the last conversation working in one.

A worktree is made in a folder of the server's workspace root that did not exist, named after
the conversation, on a new branch; removing it deletes that folder and then git's record of
it in the repository (`git worktree prune`), while the branch and its commits stay. Git runs
from the server with the repository's hooks and fsmonitor off and without the server's `GIT_*`
variables, so neither a repository's configuration nor the environment can make the server
run a program or write elsewhere.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from openhands.agent_server.errors import InvalidRequestError

__all__ = [
    "GIT_TIMEOUT_SECONDS",
    "MadeWorktree",
    "make_worktree",
    "remove_worktree",
    "sandbox_grants",
    "worktree_folder",
]

logger = logging.getLogger(__name__)

GIT_TIMEOUT_SECONDS = 120.0
"""How long one git command making or forgetting a worktree may take."""

_SAFE_GIT = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


@dataclass(frozen=True)
class MadeWorktree:
    """A worktree `make_worktree` made."""

    working_dir: str
    """The working directory in it that matches the parent's."""
    git_dir: str
    """Git's folder for it in the repository (`<repository>/.git/worktrees/<name>`)."""


def make_worktree(parent_dir: str, target: Path, branch: str) -> MadeWorktree | None:
    """A worktree of the repository holding `parent_dir` at `target`, on a new `branch` from
    the default branch. None when `parent_dir` is not in a git repository (the child then
    shares it)."""
    top = _git(parent_dir, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    base = _git(top, "rev-parse", "--abbrev-ref", "origin/HEAD") or "HEAD"
    if _git(top, "worktree", "add", "-b", branch, str(target), base, check=True) is None:
        return None
    git_dir = _git(str(target), "rev-parse", "--path-format=absolute", "--git-dir")
    if git_dir is None:  # git made it but cannot read it back: not kept
        remove_worktree(target)
        raise InvalidRequestError(
            f"git made a worktree at {target} but cannot read it; use isolation 'shared'",
            ("body", "isolation"),
        )
    inside = os.path.relpath(os.path.realpath(parent_dir), os.path.realpath(top))
    working_dir = str(target if inside == "." else target / inside)
    return MadeWorktree(working_dir=working_dir, git_dir=git_dir)


def sandbox_grants(git_dir: str) -> tuple[list[str], list[str]]:
    """(readable, writable) for the sandbox of a conversation working in the worktree whose
    git folder is `git_dir`: the repository's `.git` readable, and writable only what git
    changes for work in a worktree (its own folder, the objects, refs and logs), so the
    agent there cannot change the repository's hooks or configuration."""
    common = Path(git_dir).parent.parent  # <repository>/.git/worktrees/<name>
    writable = [git_dir, *(str(common / part) for part in ("objects", "refs", "logs"))]
    return [str(common)], writable


def worktree_folder(working_dir: str, workspace_root: Path) -> Path | None:
    """The folder of the server's workspace root that holds `working_dir` (the worktree's
    top, made for the conversation), or None when `working_dir` is not under that root."""
    root = workspace_root.resolve()
    try:
        inside = Path(working_dir).resolve().relative_to(root)
    except ValueError:
        return None
    return root / inside.parts[0] if inside.parts else None


def remove_worktree(folder: Path) -> None:
    """Delete a worktree's folder, then git's record of it in its repository (blocking).

    The branch stays. A folder that is gone already, or is a link, is left alone; a
    repository git cannot reach any more only keeps a stale record (`git worktree prune`
    there removes it).
    """
    if folder.is_symlink() or not folder.is_dir():
        return
    repository = None
    if (folder / ".git").is_file():  # a worktree's .git is a file naming its repository
        common = _git(str(folder), "rev-parse", "--path-format=absolute", "--git-common-dir")
        repository = Path(common) if common else None
    shutil.rmtree(folder, ignore_errors=True)
    if repository is not None and repository.is_dir():
        _git(str(repository), "worktree", "prune")


def _git(cwd: str, *args: str, check: bool = False) -> str | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        done = subprocess.run(
            ["git", *_SAFE_GIT, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.warning("git %s in %s failed: %s", args[0], cwd, exc)
        return None
    if done.returncode != 0:
        if check:
            raise InvalidRequestError(
                f"could not make a git worktree for the child: {done.stderr.strip()[-500:]}; "
                "use isolation 'shared' instead",
                ("body", "isolation"),
            )
        return None
    return done.stdout.strip()
