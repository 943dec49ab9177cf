"""Helpers for the `openhands-goal` process tests: start it against the fake LLM, read its
lines as they come, stop it with Ctrl-C."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from openhands.sdk.testing import FakeOpenAIServer
from waits import EVENT_WAIT

RUN_TIMEOUT = EVENT_WAIT
"""Seconds a whole `openhands-goal` run may take in a test (litellm's import included)."""

PRICED_MODEL = "openai/gpt-4o-mini"
"""A model name litellm has prices for: the fake's token counts then cost something."""


class GoalProcess:
    """`python -m openhands.tools.cli.goal ...` in `workspace`, its stdout read line by line."""

    def __init__(
        self,
        fake: FakeOpenAIServer,
        workspace: Path,
        *args: str,
        model: str = PRICED_MODEL,
        env: dict[str, str] | None = None,
        command: list[str] | None = None,
    ) -> None:
        """Start the command with the LLM settings of `fake` (`env` adds or overrides
        variables; `command` replaces `python -m openhands.tools.cli.goal`). Its stdin is a
        pipe: `answer(...)` writes to it."""
        settings = {
            **os.environ,
            "LLM_MODEL": model,
            "LLM_BASE_URL": fake.base_url,
            "LLM_API_KEY": "fake",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            **(env or {}),
        }
        settings.pop("OH_SESSION_API_KEY", None)
        if "UV_RUN_RECURSION_DEPTH" not in (env or {}):  # as if typed in a shell
            settings.pop("UV_RUN_RECURSION_DEPTH", None)
        self.process = subprocess.Popen(
            [*(command or [sys.executable, "-m", "openhands.tools.cli.goal"]), *args],
            cwd=workspace,
            env=settings,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for_line(self, fragment: str, timeout: float = RUN_TIMEOUT) -> str:
        """Block until a stdout line holds `fragment`; fail if the process ends first."""
        while True:
            try:
                line = self._queue.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(
                    f"no line with {fragment!r} in {timeout}s: {self.lines}"
                ) from None
            if line is None:
                raise AssertionError(f"ended without a line with {fragment!r}: {self.lines}")
            self.lines.append(line)
            if fragment in line:
                return line

    def interrupt(self) -> None:
        """Ctrl-C."""
        self.process.send_signal(signal.SIGINT)

    def answer(self, text: str) -> None:
        """Type `text` and Enter."""
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def end_input(self) -> None:
        """Close stdin (as Ctrl-D would)."""
        assert self.process.stdin is not None
        self.process.stdin.close()

    def finish(self, timeout: float = RUN_TIMEOUT) -> tuple[int, list[str], str]:
        """Wait for the exit; the exit code, every stdout line and stderr."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
            raise AssertionError(
                f"openhands-goal still ran after {timeout}s: {self.lines}"
            ) from None
        self._reader.join(timeout=10)
        while True:
            line = self._queue.get_nowait() if not self._queue.empty() else None
            if line is None:
                break
            self.lines.append(line)
        assert self.process.stderr is not None
        err = self.process.stderr.read()
        self.process.stderr.close()
        assert self.process.stdout is not None
        self.process.stdout.close()
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        return code, self.lines, err


def run_goal_command(
    fake: FakeOpenAIServer,
    workspace: Path,
    *args: str,
    model: str = PRICED_MODEL,
    env: dict[str, str] | None = None,
) -> tuple[int, list[str], str]:
    """Run `openhands-goal` to its end: exit code, stdout lines, stderr."""
    process = GoalProcess(fake, workspace, *args, model=model, env=env)
    process.end_input()
    return process.finish()


def json_lines(lines: list[str]) -> list[dict[str, Any]]:
    """Every stdout line parsed as JSON (each must be one)."""
    return [json.loads(line) for line in lines]


__all__ = ["PRICED_MODEL", "GoalProcess", "json_lines", "run_goal_command"]
