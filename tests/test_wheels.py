"""The three packages build as wheels that work on their own, outside this workspace.

`uv build --all-packages` makes the wheels; they go into a fresh venv in a temp folder with the
locked versions of their dependencies (so the install needs nothing the lock does not name),
and the installed `openhands-agent-server` serves its page and its static files. This catches
a file left out of a wheel (the page, a prompt template), a dependency a package imports but
does not declare, and an import that only works from the source tree.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from child_processes import uv_command
from ports import free_port
from sandbox_support import needs_bwrap
from waits import EVENT_WAIT

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("openhands_sdk", "openhands_tools", "openhands_agent_server")
INSTALL_TIMEOUT = 600.0
"""Seconds for building and installing (generous: a busy machine, a cold uv cache)."""
START_TIMEOUT = EVENT_WAIT
"""Seconds for the installed server to answer /health."""


def _run(command: list[str], cwd: Path) -> str:
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    env.pop("VIRTUAL_ENV", None)  # uv must use the venv it is told, not the workspace's
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv outside the workspace with the three wheels installed; its bin folder."""
    uv = uv_command()
    if uv is None:
        pytest.skip("uv is not installed (make install bootstraps it)")
    root = tmp_path_factory.mktemp("wheels")
    dist, venv = root / "dist", root / "venv"
    _run([*uv, "build", "--all-packages", "--wheel", "--out-dir", str(dist)], ROOT)
    wheels = sorted(dist.glob("*.whl"))
    assert sorted(w.name.split("-")[0] for w in wheels) == sorted(PACKAGES)
    requirements = root / "requirements.txt"
    _run(
        [*uv, "export", "--frozen", "--no-dev", "--all-packages", "--no-emit-workspace",
         "--no-hashes", "--quiet", "--output-file", str(requirements)],
        ROOT,
    )  # fmt: skip
    _run([*uv, "venv", "--quiet", "--python", sys.executable, str(venv)], root)
    python = venv / "bin" / "python"
    _run(
        [*uv, "pip", "install", "--quiet", "--python", str(python), "-r", str(requirements),
         *map(str, wheels)],
        root,
    )  # fmt: skip
    return venv / "bin"


def test_the_installed_packages_come_from_the_venv_not_the_workspace(installed: Path) -> None:
    code = (
        "import openhands.sdk, openhands.tools, openhands.agent_server\n"
        "for m in (openhands.sdk, openhands.tools, openhands.agent_server): print(m.__file__)"
    )
    done = subprocess.run(
        [str(installed / "python"), "-c", code],
        cwd=installed.parent.parent,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    files = done.stdout.split()
    assert len(files) == 3
    assert all(f.startswith(str(installed.parent)) and "site-packages" in f for f in files)


def _start_server(
    installed: Path, tmp_path: Path, **env: str
) -> tuple[subprocess.Popen[bytes], str]:
    """The installed server on a free port, its data in tmp_path; (process, base URL)."""
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("OH_", "LLM_"))}
    environment |= {
        "OH_CONVERSATIONS_PATH": str(tmp_path / "conversations"),
        "OH_WORKSPACE_PATH": str(tmp_path / "projects"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        **env,
    }
    environment.pop("PYTHONPATH", None)
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [str(installed / "openhands-agent-server"), "--host", "127.0.0.1", "--port", str(port)],
            cwd=tmp_path,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for_health(base, server, log)
    except BaseException:
        server.kill()
        server.wait(timeout=30)
        raise
    return server, base


def test_the_installed_server_serves_its_page(installed: Path, tmp_path: Path) -> None:
    server, base = _start_server(installed, tmp_path)
    try:
        page = httpx.get(f"{base}/", timeout=30)
        assert page.status_code == 200
        assert '<script type="module" src="/static/app.js">' in page.text
        script = httpx.get(f"{base}/static/app.js", timeout=30)
        assert script.status_code == 200 and "import" in script.text
        assert httpx.get(f"{base}/static/style.css", timeout=30).status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=30)


@needs_bwrap
def test_the_installed_server_s_terminal_runs_in_the_sandbox(
    installed: Path, tmp_path: Path
) -> None:
    # The venv is in a temp folder, which the sandbox replaces with a private one: the
    # server's own Python must be shown there, or the terminal's launcher cannot start.
    server, base = _start_server(installed, tmp_path, OH_SANDBOX="bwrap")
    try:
        sandbox = httpx.get(f"{base}/server_info", timeout=30).json()["sandbox"]
    finally:
        server.terminate()
        server.wait(timeout=30)

    assert sandbox["active"] is True and sandbox["self_check"] == "passed", sandbox


def _wait_for_health(base: str, server: subprocess.Popen[bytes], log: Path) -> None:
    """Until the server answers /health; fails at once if it exits first."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the installed server exited {server.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{base}/health", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail(f"the installed server did not answer in {START_TIMEOUT} s:\n{log.read_text()}")
