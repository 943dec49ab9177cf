"""Helpers for client-against-server tests: a live agent server process, model names, LLMs."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from openhands.sdk import LLM
from openhands.sdk.testing import FakeOpenAIServer
from pydantic import SecretStr
from waits import EVENT_WAIT

START_TIMEOUT = EVENT_WAIT


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    """`python -m openhands.agent_server` on a free port, with its own folders and log file."""

    def __init__(
        self,
        root: Path,
        api_keys: str = "",
        port: int | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.root = root
        self.extra_env = dict(extra_env or {})
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.api_keys = api_keys
        self.log_path = root / f"server-{self.port}.log"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> LiveServer:
        """Start the process and wait until /health answers (or fail with its log)."""
        env = dict(
            os.environ,
            OH_CONVERSATIONS_PATH=str(self.root / "conversations"),
            OH_WORKSPACE_PATH=str(self.root / "workspaces"),
            OH_SESSION_API_KEYS=self.api_keys,
            LITELLM_LOCAL_MODEL_COST_MAP="True",
            **self.extra_env,
        )
        log = open(self.log_path, "ab")  # noqa: SIM115  (owned by the child process)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "openhands.agent_server", "--port", str(self.port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                break
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.05)
        self.stop()
        pytest.fail(f"agent server did not start; its log:\n{self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        """Terminate the process (kill it if it does not stop within 10 s)."""
        if self._proc is None:
            return
        self._proc.terminate()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait(timeout=10)
        self._proc = None

    def kill(self) -> None:
        """SIGKILL the process, as a crash would: no shutdown work runs."""
        if self._proc is None:
            return
        self._proc.kill()
        self._proc.wait(timeout=10)
        self._proc = None

    def headers(self) -> dict[str, str]:
        """Headers for direct REST calls (the first session key, when keys are set)."""
        key = self.api_keys.split(",")[0]
        return {"X-Session-API-Key": key} if key else {}


@dataclass
class Models:
    """Unique model names for one test: the agent's and the judge's."""

    agent: str
    judge: str


def make_llm(fake: FakeOpenAIServer, model: str, usage_id: str = "agent") -> LLM:
    """An LLM that talks to the fake server under `model`, failing fast (no retries)."""
    return LLM(
        model=f"openai/{model}",
        base_url=fake.base_url,
        api_key=SecretStr("fake-key"),
        usage_id=usage_id,
        num_retries=0,
    )
