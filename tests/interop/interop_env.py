"""The reference SDK in a venv of its own, and agent servers (ours or the reference's) to test.

The reference's packages (`openhands-sdk`, `openhands-tools`, `openhands-agent-server`,
below 1.58) share the `openhands` namespace with ours, so they are installed from PyPI into a
separate venv, made once and reused (keyed by the version pin), never into this project's.
They need Python >= 3.12: `OH_REFERENCE_PYTHON`, a `python3.13`/`python3.12` on PATH, or a
pyenv version. Set `OH_REFERENCE_VENV_ROOT` to choose where the venv lives.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from child_processes import uv_command
from ports import free_port, start_serving
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
INSTALL_TIMEOUT = 1200.0
START_TIMEOUT = EVENT_WAIT
MIN_VERSION = (3, 12)


def _version(python: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(sys.version_info[0], sys.version_info[1])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    major, minor = out.stdout.split()
    return int(major), int(minor)


def find_reference_python() -> str:
    """A Python >= 3.12 to build the reference's venv with (fails the test if none)."""
    candidates: list[str] = []
    if os.environ.get("OH_REFERENCE_PYTHON"):
        candidates.append(os.environ["OH_REFERENCE_PYTHON"])
    candidates += [p for p in (shutil.which("python3.13"), shutil.which("python3.12")) if p]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += sorted(str(p) for p in pyenv.glob("versions/3.1[2-9]*/bin/python3"))
    for python in candidates:
        version = _version(python)
        if version is not None and version >= MIN_VERSION:
            return python
    pytest.fail(
        "The interop tests need Python >= 3.12 for the reference SDK (set OH_REFERENCE_PYTHON); "
        f"tried: {candidates or 'nothing found'}"
    )


def _run(command: list[str], env: dict[str, str] | None = None) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, env=env)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")


def reference_venv_root(config: pytest.Config) -> Path:
    """Where the reference's venv is kept between runs."""
    if os.environ.get("OH_REFERENCE_VENV_ROOT"):
        return Path(os.environ["OH_REFERENCE_VENV_ROOT"])
    cache = getattr(config, "cache", None)
    if cache is not None:
        return Path(cache.mkdir("openhands-interop"))
    return Path(tempfile.gettempdir()) / "openhands-interop"


def ensure_reference_python(root: Path, pin: str = REFERENCE_PIN) -> Path:
    """The Python of a venv holding the reference's packages at `pin` (made on first use,
    then reused)."""
    root.mkdir(parents=True, exist_ok=True)
    venv = root / f"reference-{pin.replace('*', 'x')}"
    python = venv / "bin" / "python"
    marker = venv / ".openhands-interop.json"
    wanted = json.dumps(list(requirements(pin)))
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs at once make it once
        if marker.exists() and marker.read_text() == wanted and python.exists():
            return python
        shutil.rmtree(venv, ignore_errors=True)
        base = find_reference_python()
        uv = uv_command()
        env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
        if uv is not None:
            _run([*uv, "venv", "--python", base, str(venv)], env=env)
            _run([*uv, "pip", "install", "--python", str(python), *requirements(pin)], env=env)
        else:
            _run([base, "-m", "venv", str(venv)])
            _run([str(python), "-m", "pip", "install", *requirements(pin)])
        marker.write_text(wanted)
    return python


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
