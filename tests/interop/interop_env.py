"""The reference SDK in a venv of its own, and agent servers (ours or the reference's) to test.

The reference's packages (`openhands-sdk`, `openhands-tools`, `openhands-agent-server`,
below 1.58) share the `openhands` namespace with ours, so they are installed from PyPI into a
separate venv (`reference_venv.py`: made once per machine and kept), never into this
project's. They need Python >= 3.12: `OH_REFERENCE_PYTHON`, a `python3.13`/`python3.12` on
PATH, or a pyenv version.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from ports import free_port, start_serving
from reference_venv import ensure_reference_python, reference_venv_root
from waits import EVENT_WAIT

REFERENCE_VERSIONS = ("1.57.0", "1.58.2")
"""The releases the route-family tests (`test_reference_surface.py`) run under; 1.58.2 is the
latest, and its server is the one the OpenAPI comparison starts."""
REFERENCE_PIN = REFERENCE_VERSIONS[0]
"""The reference release the other interop tests run against (the last below 1.58): one venv,
one server and one client runner with the route-family tests of that release."""
PACKAGES = ("openhands-sdk", "openhands-tools", "openhands-agent-server")


def requirements(pin: str) -> tuple[str, ...]:
    """The reference's three packages at `pin` (a version, or a pattern such as `1.57.*`)."""
    return tuple(f"{name}=={pin}" for name in PACKAGES)


REQUIREMENTS = requirements(REFERENCE_PIN)
START_TIMEOUT = EVENT_WAIT


def reference_python_at(pin: str = REFERENCE_PIN) -> Path:
    """The Python of the kept venv holding the reference's packages at `pin`."""
    return ensure_reference_python(reference_venv_root(), requirements(pin), pin)


class ServerProcess:
    """An agent server subprocess on a free 127.0.0.1 port, its output in a log file."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path, key: str) -> None:
        self.port = free_port()
        self.key = key
        self.command = command
        self.env = env
        self.cwd = cwd
        self.log_path = cwd / f"server-{self.port}.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        """Start it and wait until it listens on its port and /health answers (fails with
        its log if it dies first); a port another process took first is traded for a new one."""
        self.cwd.mkdir(parents=True, exist_ok=True)
        self._process, self.port = start_serving(
            self._spawn, self.port, log=self.log_path, what=" ".join(self.command)
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and self._process.poll() is None:
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)  # polling a process that is starting: there is no event to wait on
        self.stop()
        pytest.fail(f"{self.command} did not start; its log:\n{self.log()[-4000:]}")

    def _spawn(self, port: int) -> subprocess.Popen[bytes]:
        command = [*self.command, "--host", "127.0.0.1", "--port", str(port)]
        with open(self.log_path, "ab") as log:
            return subprocess.Popen(
                command, env=self.env, cwd=self.cwd, stdout=log, stderr=subprocess.STDOUT
            )

    def log(self) -> str:
        """What the server printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        """Terminate it (kill after 10 s)."""
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=10)
        self._process = None


def quiet_env(home: Path) -> dict[str, str]:
    """The environment of a server or client process: no banner, no price-map fetch, its own
    HOME (the reference keeps settings there), none of this process's OH_ settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OH_", "LLM_"))}
    env |= {
        "HOME": str(home),
        "OPENHANDS_SUPPRESS_BANNER": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONUNBUFFERED": "1",
    }
    return env


class ReferenceRunner:
    """One `reference_clients/runner.py` process of a reference Python: it runs the flows of
    `reference_clients/*.py` one after the other, paying the reference SDK's import once.

    Its stderr (the flows' output) goes to a log file shown when a flow fails; a flow that
    fails or times out ends the process, so the next flow starts in a fresh one.
    """

    def __init__(self, python: Path, log_dir: Path) -> None:
        self.python = python
        self.log_path = log_dir / f"reference-runner-{os.getpid()}-{id(self)}.log"
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader: threading.Thread | None = None

    def _started(self, home: Path) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.log_path, "a") as log:
                self._process = subprocess.Popen(
                    [str(self.python), str(RUNNER)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    text=True,
                    env=quiet_env(home),
                    cwd=home,
                )
            self._lines = queue.Queue()
            self._reader = threading.Thread(
                target=_forward_lines, args=(self._process, self._lines), daemon=True
            )
            self._reader.start()
        return self._process

    def run(
        self,
        flow: str,
        config: Mapping[str, object],
        home: Path,
        *,
        script: str = "drive.py",
        timeout: float = 300.0,
    ) -> dict[str, Any]:
        """`flow_<flow>(config)` of `reference_clients/<script>`, run in `home`; its result.
        A failure fails the test with the flow's traceback and output."""
        process = self._started(home)
        request = {"script": script, "flow": flow, "config": dict(config), "home": str(home)}
        assert process.stdin is not None
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            line = None
        answer: dict[str, Any] = json.loads(line) if line else {}
        if "result" in answer:
            return answer["result"]
        self.close()
        why = answer.get("error") or f"no answer in {timeout} s (or the process ended)"
        pytest.fail(
            f"reference client flow {script}:{flow} failed:\n{why}\n"
            f"its output:\n{self.log()[-4000:]}"
        )

    def log(self) -> str:
        """What the runner's flows printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def close(self) -> None:
        """End the process (kill after 10 s)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if self._reader is not None:
            self._reader.join(timeout=10)  # it ends at the pipe's end, once the process has
        if process.stdout is not None:
            process.stdout.close()


RUNNER = Path(__file__).with_name("reference_clients") / "runner.py"


def _forward_lines(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        lines.put(line)
    lines.put(None)
