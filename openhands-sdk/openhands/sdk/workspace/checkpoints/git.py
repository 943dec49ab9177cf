"""Running git on a shadow repository: its own GIT_DIR, index and configuration.

Every command runs with GIT_DIR (the shadow repository), GIT_WORK_TREE (the workspace) and
GIT_INDEX_FILE (the shadow's own index) set, without the user's global or system git
configuration and with literal pathspecs, so the workspace's own `.git` (if any), its index
and its branches are never read or written, and no configured hook, filter or signing
program runs. The environment is minimal: the server's secrets never reach git.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from openhands.sdk.workspace.checkpoints.errors import (
    CheckpointError,
    CheckpointUnavailableError,
)

GIT_TIMEOUT_SECONDS = 300.0
"""How long one git command may take (a first snapshot of a large workspace is the longest)."""

_IDENTITY = "OpenHands checkpoints"
_EMAIL = "checkpoints@openhands.invalid"
_KEPT_VARIABLES = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


def git_executable() -> str:
    """The path of `git`, or `CheckpointUnavailableError` saying how to get it."""
    found = shutil.which("git")
    if found is None:
        raise CheckpointUnavailableError(
            "Checkpoints need git, which is not installed (or not on PATH): install git "
            "(e.g. `apt-get install git`), or switch checkpoints off with OH_CHECKPOINTS=0."
        )
    return found


class Git:
    """git bound to one shadow repository (`git_dir`) and one workspace (`work_tree`)."""

    def __init__(self, git_dir: Path, work_tree: Path) -> None:
        """Bind to the shadow repository at `git_dir` for the files under `work_tree`."""
        self.git_dir = git_dir
        self.work_tree = work_tree
        self.executable = git_executable()
        env = {name: os.environ[name] for name in _KEPT_VARIABLES if name in os.environ}
        env.update(
            GIT_DIR=str(git_dir),
            GIT_WORK_TREE=str(work_tree),
            GIT_INDEX_FILE=str(git_dir / "index"),
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_LITERAL_PATHSPECS="1",
            GIT_TERMINAL_PROMPT="0",
            GIT_AUTHOR_NAME=_IDENTITY,
            GIT_AUTHOR_EMAIL=_EMAIL,
            GIT_COMMITTER_NAME=_IDENTITY,
            GIT_COMMITTER_EMAIL=_EMAIL,
        )
        self.env = env
        """The environment every command gets (see the module docstring)."""

    def run(self, *args: str, stdin: bytes | None = None, ok_codes: Sequence[int] = (0,)) -> bytes:
        """Run `git ARGS` in the workspace; its stdout. A failure is a `CheckpointError`."""
        try:
            done = subprocess.run(
                [self.executable, *args],
                cwd=self.work_tree,
                env=self.env,
                input=stdin,
                capture_output=True,
                timeout=GIT_TIMEOUT_SECONDS,
                check=False,
                # The shadow repository sits in the conversation's folder: private like it.
                umask=0o077,
            )
        except subprocess.TimeoutExpired:
            raise CheckpointError(
                f"git {args[0]} took longer than {GIT_TIMEOUT_SECONDS:g} s in {self.work_tree}: "
                "the workspace may be too large to snapshot; ignore large folders in a "
                ".gitignore or switch checkpoints off (OH_CHECKPOINTS=0)."
            ) from None
        except OSError as exc:
            raise CheckpointError(
                f"git could not run in {self.work_tree}: {exc.strerror or exc}"
            ) from exc
        if done.returncode not in ok_codes:
            message = done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}"
            raise CheckpointError(f"git {args[0]} failed in {self.work_tree}: {message}")
        return done.stdout

    def text(self, *args: str) -> str:
        """`run(...)` decoded, without the trailing newline."""
        return self.run(*args).decode(errors="replace").rstrip("\n")


def nul_split(output: bytes) -> list[str]:
    """The NUL-separated fields of a `-z` output, decoded (file names may be any bytes)."""
    return [part.decode(errors="surrogateescape") for part in output.split(b"\0") if part]


def nul_join(paths: Sequence[str]) -> bytes:
    """Paths as a NUL-separated pathspec file (`--pathspec-file-nul`)."""
    return b"\0".join(path.encode(errors="surrogateescape") for path in paths)


__all__ = ["GIT_TIMEOUT_SECONDS", "Git", "git_executable", "nul_join", "nul_split"]
