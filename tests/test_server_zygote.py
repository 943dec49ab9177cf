"""Servers forked by the suite's zygote behave as fresh `python -m openhands.agent_server`
processes do: folder, environment, output, exit codes (tests/server_zygote.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import psutil
import pytest
from agent_server.harness import ServerProcess, wait_until
from server_zygote import ForkedChild, ServerChild, forkable, start_server

pytestmark = pytest.mark.timeout(120)


def _start(tmp_path: Path, name: str, *, fresh: bool, env: dict[str, str]) -> ServerChild:
    folder = tmp_path / name
    folder.mkdir()
    full = {**os.environ, "OH_CONVERSATIONS_PATH": str(folder / "conversations"), **env}
    full.pop("OH_SESSION_API_KEYS", None)
    return start_server(
        sys.executable,
        ["--port", "1"],  # a port no one may bind: both kinds fail the same way, at once
        env=full,
        cwd=str(folder),
        log=folder / "server.log",
        preexec_fn=(lambda: None) if fresh else None,
    )


def test_a_forked_server_exits_like_a_fresh_one_on_a_bad_setting(tmp_path: Path) -> None:
    env = {"OH_MAX_CONNECTIONS": "many"}
    fresh = _start(tmp_path, "fresh", fresh=True, env=env)
    forked = _start(tmp_path, "forked", fresh=False, env=env)
    assert isinstance(forked, ForkedChild) and isinstance(fresh, subprocess.Popen)
    assert forked.wait(timeout=60) == fresh.wait(timeout=60) == 1
    said = [(tmp_path / name / "server.log").read_text() for name in ("fresh", "forked")]
    assert said[0] == said[1] and "invalid setting" in said[0] and "OH_MAX_CONNECTIONS" in said[0]


def test_a_forked_server_runs_in_its_folder_with_its_environment(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "conversations", env={"OH_SESSION_API_KEYS": "zygote-key"})
    server.start()
    try:
        assert isinstance(server.process, ForkedChild)
        process = psutil.Process(server.process.pid)
        assert process.cwd() == os.getcwd()
        # The key the environment gave is the one the server asks for.
        assert httpx.get(f"{server.url}/api/conversations/search").status_code == 401
        with server.client() as client:
            assert client.get("/api/conversations/search").status_code == 200
        assert (tmp_path / "conversations").is_dir()
    finally:
        server.stop()
    assert server.process.returncode == -signal.SIGTERM
    assert "Application shutdown complete" in server.log()


def test_a_killed_forked_server_reports_the_signal(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "conversations").start()
    child = server.process
    assert isinstance(child, ForkedChild)
    server.kill()
    assert child.returncode == -signal.SIGKILL
    wait_until(lambda: not psutil.pid_exists(child.pid), what="the pid to be gone")


def test_what_changes_how_python_starts_gets_a_fresh_process() -> None:
    same = dict(os.environ)
    assert forkable(sys.executable, same, None)
    assert not forkable("/usr/bin/python3", same, None)
    assert not forkable(sys.executable, same, lambda: None)
    assert not forkable(sys.executable, {**same, "OH_TEST_LITELLM_ALLOWED": "1"}, None)
    assert not forkable(sys.executable, {**same, "PYTHONPATH": "/elsewhere"}, None)
    assert forkable(sys.executable, {**same, "PYTHONUNBUFFERED": "1"}, None)
