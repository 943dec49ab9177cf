"""The agent server's Docker image, built and run: `make image-test` (OH_TEST_IMAGE names it).

Each container is started with the `docker run` options docs/agent-server.md documents (read
from the docs), on a published port of 127.0.0.1. One server container (a named volume, the
fake LLM started inside it) is shared by the module, in order: what a fresh start shows, the
sandbox and its network, a goal to `complete` (terminal and `verify` in the sandbox), a
restart on the same volume, the healthcheck, `docker stop`. Other containers try the sandbox
without network and without the documented options. Skipped unless OH_TEST_IMAGE is set.
"""

from __future__ import annotations

import http.server
import os
import shlex
import threading
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from agent_server.harness import wait_goal_end, wait_until
from docker_cli import Container, docker, documented_run_options
from openhands.sdk.workspace.sandbox_probe import CONTAINER_OPTIONS
from waits import EVENT_WAIT

IMAGE = os.environ.get("OH_TEST_IMAGE", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.image,
    pytest.mark.skipif(not IMAGE, reason="needs a built image: make image-test"),
]

FAKE_LLM_PORT = 8001
FAKE_LLM = {
    "LLM_MODEL": "openai/fake",
    "LLM_BASE_URL": f"http://127.0.0.1:{FAKE_LLM_PORT}/v1",
    "LLM_API_KEY": "fake",
}
PLANTED = ("git", "bwrap", "slirp4netns", "openhands-agent-server")
"""Programs the agent drops into its own bin folder: the server must never run them."""


def _plant(name: str) -> str:
    """A command (for the agent's sandbox) that drops a program `name` into the agent's bin
    folder; the program leaves a mark in /opt/project when it runs."""
    program = f"/opt/project/bin/{name}"
    script = f"#!/bin/sh\\ntouch /opt/project/RAN-{name}\\nexit 1\\n"
    return f"rm -f {program} && printf '{script}' > {program} && chmod +x {program}"


def _marks(container: Container) -> str:
    """The marks planted programs left (empty: none ran)."""
    return container.exec("sh", "-c", "ls /opt/project | grep RAN- || true")


HOST_REPLY = "hello from the host"
NO_SANDBOX = "WITHOUT a sandbox"


@pytest.fixture(scope="module")
def options() -> list[str]:
    """The documented options, which must be those the sandbox's warning names."""
    documented = documented_run_options()
    assert documented == shlex.split(CONTAINER_OPTIONS), (documented, CONTAINER_OPTIONS)
    return documented


@pytest.fixture(scope="module")
def host_service(server: Container) -> Iterator[str]:
    """An HTTP service on this machine's address on Docker's bridge: `outside` for a container."""

    class Reply(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = HOST_REPLY.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            del format, args

    gateway = server.gateway()
    assert gateway, server.inspect()["NetworkSettings"]
    service = http.server.ThreadingHTTPServer((gateway, 0), Reply)
    thread = threading.Thread(target=service.serve_forever, daemon=True)
    thread.start()
    yield f"http://{gateway}:{service.server_address[1]}/"
    service.shutdown()
    service.server_close()


@pytest.fixture(scope="module")
def volume() -> Iterator[str]:
    name = f"oh-image-test-{uuid.uuid4().hex[:10]}"
    docker("volume", "create", name)
    yield name
    docker("volume", "rm", "-f", name, check=False)


def _start_fake_llm(container: Container) -> None:
    container.exec_detached(
        "/app/.venv/bin/openhands-fake-llm", "--port", str(FAKE_LLM_PORT), "--delay", "0"
    )
    models = f"http://127.0.0.1:{FAKE_LLM_PORT}/v1/models"
    check = f"import urllib.request; urllib.request.urlopen('{models}', timeout=2)"
    wait_until(
        lambda: container.succeeds("/app/.venv/bin/python", "-c", check),
        EVENT_WAIT,
        what="the fake LLM in the container",
    )


@pytest.fixture(scope="module")
def server(options: list[str], volume: str) -> Iterator[Container]:
    """The documented `docker run` with a named volume and the fake LLM as the model."""
    container = Container(IMAGE, options=[*options, "-v", f"{volume}:/data"], env=FAKE_LLM)
    try:
        container.run()
        _start_fake_llm(container)
        yield container
    finally:
        container.remove()


def _pids(container: Container) -> list[tuple[int, int, int, str]]:
    """(pid, parent pid, uid, command line) of every process in the container."""
    table = container.exec("ps", "-eo", "pid=,ppid=,uid=,args=")
    rows = []
    for line in table.splitlines():
        pid, ppid, uid, args = line.split(None, 3)
        rows.append((int(pid), int(ppid), int(uid), args))
    return rows


def _server_pid(container: Container) -> int:
    """The server's process: tini's child (tini's own command line names it too)."""
    rows = _pids(container)
    [pid] = [p for p, ppid, _, args in rows if ppid == 1 and "openhands-agent-server" in args]
    return pid


def _assert_clean_start(container: Container) -> None:
    logs = container.logs()
    noisy = [
        line
        for line in logs.splitlines()
        if " WARNING " in line or " ERROR " in line or "Traceback" in line
    ]
    assert not noisy, logs


def test_the_server_answers_health_and_serves_the_page(server: Container) -> None:
    health = httpx.get(f"{server.base_url}/health", timeout=30)
    page = httpx.get(f"{server.base_url}/", timeout=30)

    assert health.json() == {"status": "ok"}
    assert page.status_code == 200
    assert "<title>OpenHands agent server</title>" in page.text


def test_a_fresh_volume_starts_clean_and_private(server: Container) -> None:
    _assert_clean_start(server)  # no "mode is now 0700", no sandbox warning, nothing else
    modes = server.exec("stat", "-c", "%a %U %n", "/data/conversations", "/data/.secret_key")

    assert modes.splitlines() == [
        "700 openhands /data/conversations",
        "600 openhands /data/.secret_key",
    ]


def test_the_server_runs_as_the_non_root_user_under_tini(server: Container) -> None:
    processes = _pids(server)
    init = next(row for row in processes if row[0] == 1)
    pid = _server_pid(server)
    environ = server.exec("cat", f"/proc/{pid}/environ").split("\0")
    path = next(entry for entry in environ if entry.startswith("PATH="))

    assert init[3].startswith("/usr/bin/tini -e 143 -- /app/.venv/bin/openhands-agent-server")
    assert next(row for row in processes if row[0] == pid)[1:3] == (1, 1000)
    assert "/opt/project" not in path  # the agent can write there: never searched by the server


def test_the_sandbox_is_on_with_a_network_that_reaches_out_but_not_the_server(
    server: Container, host_service: str
) -> None:
    with server.client() as http:
        sandbox = http.get("/server_info").json()["sandbox"]
    outside = server.bash(f"curl -sS --max-time 20 {host_service}")
    own_port = server.bash("curl -s --max-time 5 http://127.0.0.1:8000/health")
    llm = server.bash(f"curl -s --max-time 5 http://127.0.0.1:{FAKE_LLM_PORT}/v1/models")
    who = server.bash(
        "id -u; test -s /data/.secret_key || echo key-hidden; ls -A /data/conversations"
    )

    assert sandbox == {
        "mode": "auto",
        "active": True,
        "network": "isolated",
        "warning": None,
        "self_check": "passed",
    }
    assert (outside["exit_code"], outside["stdout"]) == (0, HOST_REPLY), outside
    assert own_port["exit_code"] != 0 and "ok" not in (own_port["stdout"] or "")
    assert llm["exit_code"] != 0  # every loopback service of the container is out of reach
    assert (who["stdout"] or "").split() == ["1000", "key-hidden"]


@pytest.fixture(scope="module")
def goal(server: Container) -> dict[str, Any]:
    """A goal run to its end against the fake LLM in the container, after the agent dropped
    programs named like the server's own into its bin folder (the server must not run them)."""
    planted = server.bash(" && ".join(_plant(name) for name in PLANTED))
    assert planted["exit_code"] == 0, planted
    agent = {
        "kind": "Agent",
        "llm": {"model": FAKE_LLM["LLM_MODEL"], "base_url": FAKE_LLM["LLM_BASE_URL"]},
        "tools": [{"name": "terminal"}, {"name": "file_editor"}],
    }
    # verify runs in the sandbox with the agent's Python: pytest from /opt/project, and the
    # key file it cannot read.
    verify = "python3 -m pytest -q && test ! -s /data/.secret_key"
    with server.client() as http:
        created = http.post("/api/conversations", json={"agent": agent})
        assert created.status_code == 201, created.text
        cid = created.json()["id"]
        started = http.post(
            f"/api/conversations/{cid}/goal",
            json={"objective": "greet the world, with a test", "verify": verify},
        )
        assert started.status_code == 200, started.text
        ended = wait_goal_end(
            lambda: http.get(f"/api/conversations/{cid}/goal").json(), timeout=EVENT_WAIT
        )
        events = http.get(f"/api/conversations/{cid}/events/search", params={"limit": 100}).json()[
            "items"
        ]
        checkpoints = http.get(f"/api/conversations/{cid}/checkpoints").json()
    return {
        "id": cid,
        "status": ended,
        "events": events,
        "checkpoints": checkpoints,
        "workspace": created.json()["workspace"]["working_dir"],
    }


def test_a_goal_completes_with_the_agent_s_terminal_and_verify_in_the_sandbox(
    server: Container, goal: dict[str, Any]
) -> None:
    status = goal["status"]
    observed = str(goal["events"])
    files = server.exec("ls", goal["workspace"]).split()
    sandboxes = [args for _, _, _, args in _pids(server) if args.startswith("/usr/bin/bwrap ")]

    assert (status["status"], status["iteration"]) == ("complete", 2), status
    assert status["verify"]["exit_code"] == 0, status["verify"]
    assert "Hello, world!" in observed and "checks passed: 1" in observed
    assert {"hello_goal.py", "test_hello_goal.py"} <= set(files)
    assert len(goal["checkpoints"]) >= 2  # the server's own git made the snapshots
    # The terminal's shell lives on in its sandbox, with its own network stack.
    assert any(goal["workspace"] in args and "--unshare-net" in args for args in sandboxes)
    assert any(args.startswith("/usr/bin/slirp4netns ") for _, _, _, args in _pids(server))
    assert _marks(server) == ""


def test_the_agent_s_pip_reaches_pypi_through_the_proxy_the_image_trusts(
    server: Container,
) -> None:
    try:
        urllib.request.urlopen("https://pypi.org/simple/iniconfig/", timeout=30)
    except OSError as exc:
        pytest.skip(f"this machine does not reach PyPI: {exc}")

    fetched = server.bash("pip download -q --no-deps -d /tmp/fetched iniconfig && ls /tmp/fetched")
    server_side = server.exec(
        "/app/.venv/bin/python",
        "-c",
        "import urllib.request; print(urllib.request.urlopen("
        "'https://pypi.org/simple/iniconfig/', timeout=30).status)",
    )

    assert fetched["exit_code"] == 0, fetched
    assert "iniconfig" in fetched["stdout"]
    assert server_side == "200"


def test_the_volume_keeps_everything_across_a_restart(
    server: Container, goal: dict[str, Any]
) -> None:
    key_before = server.exec("sha256sum", "/data/.secret_key")

    server.restart()

    with server.client() as http:
        info = http.get("/server_info").json()
        after = http.get(f"/api/conversations/{goal['id']}/goal").json()
        events = http.get(f"/api/conversations/{goal['id']}/events/count").json()
    assert info["conversations"] == 1
    assert info["sandbox"]["active"] and info["sandbox"]["network"] == "isolated"
    assert (after["status"], after["iteration"]) == ("complete", 2)
    assert events >= len(goal["events"])
    assert server.exec("sha256sum", "/data/.secret_key") == key_before
    assert {"hello_goal.py", "test_hello_goal.py"} <= set(
        server.exec("ls", goal["workspace"]).split()
    )
    # The start's sandbox probe found bwrap and slirp4netns where the server looks, not in
    # the agent's bin folder.
    assert _marks(server) == ""


def test_the_healthcheck_runs_the_server_s_python_and_reports_healthy(server: Container) -> None:
    test = server.inspect()["Config"]["Healthcheck"]["Test"]
    # The agent's own `python` set aside for a `python` of the agent's making.
    moved = server.bash(
        f"mv /opt/project/bin/python /opt/project/python.real && {_plant('python')}"
    )
    assert moved["exit_code"] == 0, moved
    try:
        checks = wait_until(
            lambda: (h := server.state()["Health"])["Status"] != "starting" and h["Log"],
            timeout=120,  # the first check runs 30 s after the start
            what="Docker's first health check",
        )
    finally:
        server.bash("mv -f /opt/project/python.real /opt/project/bin/python")

    assert test[:2] == ["CMD", "/app/.venv/bin/python"]
    assert server.state()["Health"]["Status"] == "healthy", checks
    assert checks[-1]["ExitCode"] == 0
    assert _marks(server) == ""


def test_docker_stop_ends_the_server_cleanly(server: Container) -> None:
    docker("stop", server.name)  # SIGTERM, then SIGKILL after 10 s

    state = server.state()
    logs = server.logs()
    assert state["Status"] == "exited"
    assert (state["ExitCode"], state["OOMKilled"]) == (0, False), logs  # 137: it was killed
    assert "Traceback" not in logs
    assert "Application shutdown complete" in logs


def test_without_network_the_sandbox_is_on_and_reaches_nothing(
    options: list[str], host_service: str
) -> None:
    container = Container(IMAGE, options=options, env={"OH_SANDBOX_NETWORK": "false"})
    try:
        container.run()
        with container.client() as http:
            sandbox = http.get("/server_info").json()["sandbox"]
        outside = container.bash(f"curl -s --max-time 5 {host_service}")
        _assert_clean_start(container)
    finally:
        container.remove()

    assert sandbox == {
        "mode": "auto",
        "active": True,
        "network": "none",
        "warning": None,
        "self_check": "passed",
    }
    assert outside["exit_code"] != 0 and HOST_REPLY not in (outside["stdout"] or "")


def test_without_the_documented_options_the_warning_names_them() -> None:
    container = Container(IMAGE, options=[], env={})
    try:
        container.run()
        with container.client() as http:
            sandbox = http.get("/server_info").json()["sandbox"]
        logs = container.logs()
    finally:
        container.remove()

    assert not sandbox["active"]
    assert NO_SANDBOX in sandbox["warning"] and CONTAINER_OPTIONS in sandbox["warning"]
    assert CONTAINER_OPTIONS in logs
    assert "install slirp4netns" not in logs
