"""A live agent server process for browser tests, which a test may crash and restart."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

LLM_VARIABLES = ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerProcess:
    """`python -m openhands.agent_server` on a fixed port that a test can crash and restart.

    `llm_env` sets LLM_MODEL / LLM_BASE_URL / LLM_API_KEY; the developer's own are dropped.
    """

    def __init__(self, root: Path, api_keys: str = "", **llm_env: str) -> None:
        """Prepare a server keeping its conversations under `root`; `start()` runs it."""
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = root / "server.log"
        self._env = {k: v for k, v in os.environ.items() if k not in LLM_VARIABLES}
        self._env.update(
            OH_CONVERSATIONS_PATH=str(root / "conversations"),
            OH_WORKSPACE_PATH=str(root / "workspaces"),
            OH_SESSION_API_KEYS=api_keys,
            LITELLM_LOCAL_MODEL_COST_MAP="True",
            **llm_env,
        )
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the process and wait until /health answers (or fail with its log)."""
        with open(self.log_path, "ab") as log:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "openhands.agent_server", "--port", str(self.port)],
                env=self._env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 60
        while self._proc.poll() is None and time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.05)
        self.stop()
        pytest.fail(f"agent server did not start:\n{self.log_path.read_text()[-3000:]}")

    def crash(self) -> None:
        """SIGKILL the process: no shutdown work runs, as when a machine dies."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait(timeout=10)
            self._proc = None

    def stop(self) -> None:
        """Terminate the process (kill it if it does not stop within 10 s)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@contextlib.contextmanager
def live_server(root: Path, api_keys: str = "", **llm_env: str) -> Iterator[str]:
    """Run an agent server (see `ServerProcess`) until the block ends; its URL."""
    server = ServerProcess(root, api_keys, **llm_env)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()
