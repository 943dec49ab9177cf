"""`GitReader`: the git routes' questions about a user's repository, asked in its sandbox.

Each question runs `git_script.py` once, with the server's Python (`-I -S`: no environment,
no site packages), through `run_shell` in the sandbox of the request's `Scope`: the agent's
environment (no server secrets), the sandbox's view of the files, its whole tree killed at
`OH_GIT_TIMEOUT_SECONDS`. So a hostile `.git/config` (an fsmonitor, filters, a diff driver,
hooks, an ssh command) runs nothing in the server's process, and the script turns those
settings off besides. These routes read the user's repository; the checkpoints' shadow
repository is never involved.

As the reference answers: a folder that is no repository has no changes (an empty list, an
empty page, an empty diff); a bad ref, an unknown commit or a file git cannot diff is a 400
saying why.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.errors import BadRequestError, ServerError
from openhands.agent_server.services.scopes import Scope
from openhands.sdk.wire.git import GitChange, GitCommitsPage, GitDiff
from openhands.sdk.workspace.agent_env import agent_environment
from openhands.sdk.workspace.processes import guarded_process_group, kill_process_group
from openhands.sdk.workspace.sandbox import SandboxUnavailableError
from openhands.sdk.workspace.sandbox_popen import sandbox_popen
from openhands.sdk.workspace.shell import run_shell

SCRIPT = Path(__file__).with_name("git_script.py")


class GitUnavailableError(ServerError):
    """git could not be asked at all (it is missing, or the sandbox refused to start)."""

    status_code = 503


class GitReader:
    """Answers git questions about folders of a scope, off the event loop."""

    def __init__(self, pool: BlockingPool, timeout: float) -> None:
        """Run the questions in `pool`; each may take `timeout` seconds in all."""
        self._pool = pool
        self._timeout = timeout

    async def changes(self, scope: Scope, path: Path, ref: str | None) -> list[GitChange]:
        """The changed files under `path` (a folder), against `ref` or the display base."""
        found = await self._ask(scope, path, {"op": "changes", "path": str(path), "ref": ref})
        return [] if found is None else [GitChange(status=s, path=p) for s, p in found]

    async def diff(self, scope: Scope, path: Path, ref: str | None) -> GitDiff:
        """Both sides of the file `path`: at `ref` (or the display base) and on disk."""
        found = await self._ask(scope, path.parent, {"op": "diff", "path": str(path), "ref": ref})
        return GitDiff() if found is None else GitDiff.model_validate(found)

    async def commit_diff(self, scope: Scope, path: Path, commit: str) -> GitDiff:
        """Both sides of the file `path` as `commit` changed it."""
        request = {"op": "commit_diff", "path": str(path), "commit": commit}
        found = await self._ask(scope, path.parent, request)
        return GitDiff() if found is None else GitDiff.model_validate(found)

    async def commits(self, scope: Scope, path: Path, limit: int) -> GitCommitsPage:
        """The newest `limit` commits of the repository at `path`."""
        found = await self._ask(scope, path, {"op": "commits", "path": str(path), "limit": limit})
        if found is None:
            return GitCommitsPage(commits=[], has_more=False)
        return GitCommitsPage.model_validate(found)

    async def commit_changes(self, scope: Scope, path: Path, commit: str) -> list[GitChange]:
        """The files `commit` changed in the repository at `path`."""
        request = {"op": "commit_changes", "path": str(path), "commit": commit}
        found = await self._ask(scope, path, request)
        return [] if found is None else [GitChange(status=s, path=p) for s, p in found]

    async def repo_info(self, scope: Scope, path: Path) -> dict[str, str]:
        """The repository at `path`: root, origin's URL, branch, HEAD ({} for no repository)."""
        found = await self._ask(scope, path, {"op": "repo_info", "path": str(path)})
        return found or {}

    async def delta(
        self, scope: Scope, path: Path, base_ref: str | None, excludes: list[str], output: Path
    ) -> str:
        """Write the work tree's changes under `path` as a binary patch to `output`; the base
        commit ("" for the empty tree). BadRequestError when `path` is no repository."""
        request = {"op": "delta", "path": str(path), "base_ref": base_ref, "excludes": excludes}
        found = await self._pool.run(self._to_file, scope, path, request, output)
        if found is None:
            raise BadRequestError(f"Not a git repository: {path}")
        return found

    def _to_file(self, scope: Scope, near: Path, request: dict[str, Any], output: Path) -> Any:
        """Run the script with its stdout in `output`; its answer is on stderr's last line."""
        argv = [sys.executable, "-I", "-S", str(SCRIPT), json.dumps(request)]
        with open(output, "wb") as sink:
            try:
                started = sandbox_popen(
                    argv,
                    workspace=scope.workspace,
                    cwd=_existing_folder(near, scope.workspace),
                    stdin=subprocess.DEVNULL,
                    stdout=sink,
                    stderr=subprocess.PIPE,
                    env=agent_environment(),
                    start_new_session=True,
                )
            except (OSError, ValueError, SandboxUnavailableError) as exc:
                raise GitUnavailableError(f"git could not be started: {exc}") from None
            process = started.process
            try:
                with guarded_process_group(process.pid):
                    try:
                        _, err = process.communicate(timeout=self._timeout * 10)
                    except subprocess.TimeoutExpired:
                        kill_process_group(process.pid)
                        process.communicate()
                        raise BadRequestError(
                            f"git took longer than {self._timeout * 10:g} s to make the patch"
                        ) from None
            finally:
                started.release()
        lines = err.decode(errors="replace").strip().splitlines()
        return self._answer(lines, request, process.returncode, "")

    async def _ask(self, scope: Scope, near: Path, request: dict[str, Any]) -> Any:
        """The script's answer; None for "not a repository"; BadRequestError for the rest."""
        return await self._pool.run(self._run, scope, near, request)

    def _run(self, scope: Scope, near: Path, request: dict[str, Any]) -> Any:
        if not scope.workspace.is_dir():  # a conversation whose folder is not made yet
            return None
        argv = [sys.executable, "-I", "-S", str(SCRIPT), json.dumps(request)]
        cwd = _existing_folder(near, scope.workspace)
        result = run_shell(
            shlex.join(argv),
            cwd,
            timeout=self._timeout,
            separate_stderr=True,
            workspace=scope.workspace,
        )
        if result.timed_out:
            raise BadRequestError(f"git took longer than {self._timeout:g} s; try a smaller folder")
        lines = result.output.strip().splitlines()
        return self._answer(lines, request, result.exit_code, result.stderr or result.output)

    def _answer(self, lines: list[str], request: dict[str, Any], code: int, said: str) -> Any:
        """The script's answer line read; None for "not a repository"."""
        try:
            answer = json.loads(lines[-1]) if lines else None
        except json.JSONDecodeError:
            answer = None
        if not isinstance(answer, dict):
            raise GitUnavailableError(
                f"git could not be run for {request['path']} (exit {code}): "
                f"{(said or chr(10).join(lines)).strip()[-300:]}"
            )
        if "ok" in answer:
            return answer["ok"]
        error = answer.get("error") or {}
        if error.get("kind") == "not_repo":
            return None
        raise BadRequestError(str(error.get("message") or "git failed"))


def _existing_folder(path: Path, fallback: Path) -> Path:
    """The nearest existing folder at or above `path` (the command's working directory)."""
    folder = path
    while not folder.is_dir():
        if folder == folder.parent:
            return fallback
        folder = folder.parent
    return folder
