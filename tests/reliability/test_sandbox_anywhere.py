"""The sandbox works wherever the server is installed: /tmp, /var/tmp, a home folder.

The sandbox gives the agent a private, empty `/tmp`. A server run from a venv under /tmp (a
checkout cloned there, a wheel or tool venv made in a temp folder) used to lose its own
Python inside the sandbox, so the terminal's launcher could not start and no command of the
agent ever ran ("bash did not become ready ... .venv/bin/python: No such file or
directory"), while /server_info said the sandbox was active. Here real servers run from this
project's Python installed in each place (`relocated_python`), with OH_SANDBOX=bwrap, and
the agent's terminal (driven by the fake LLM) must run its commands, still sandboxed, and
must not be able to write the server's venv.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_server.harness import ServerProcess, llm_spec, unique, wait_until
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from relocated_python import relocated_python
from sandbox_support import needs_bwrap

pytestmark = [pytest.mark.timeout(300), needs_bwrap]

PLACES = {
    "tmp": lambda: tempfile.mkdtemp(prefix="oh-anywhere-"),
    "var-tmp": lambda: tempfile.mkdtemp(prefix="oh-anywhere-", dir="/var/tmp"),
    "home": lambda: tempfile.mkdtemp(prefix=".oh-anywhere-", dir=Path.home()),
}
"""Where the server is installed: a folder made in each place, removed afterwards."""


@pytest.fixture(params=sorted(PLACES))
def place(request: pytest.FixtureRequest) -> Iterator[Path]:
    """A folder in /tmp, /var/tmp or the home folder, for the server's venv and its data."""
    folder = Path(PLACES[request.param]())
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake LLM server."""
    with FakeOpenAIServer() as server:
        yield server


def _observations(server: ServerProcess, cid: str) -> list[str]:
    with server.client() as http:
        items = http.get(
            f"/api/conversations/{cid}/events/search",
            params={"kind": "ObservationEvent", "limit": 100},
        ).json()["items"]
    return [part["text"] for item in items for part in item["observation"]["content"]]


def test_the_terminal_runs_in_the_sandbox_wherever_the_server_is_installed(
    place: Path, fake_llm: FakeOpenAIServer
) -> None:
    python = relocated_python(place)
    venv = python.parent.parent
    (place / "data").mkdir()
    server = ServerProcess(
        place / "data" / "conversations", python=str(python), env={"OH_SANDBOX": "bwrap"}
    )
    server.start()
    try:
        with server.client() as http:
            info = http.get("/server_info").json()["sandbox"]
            assert info["active"] is True and info["self_check"] == "passed", info
            model = unique("anywhere")
            agent = {
                "kind": "Agent",
                "llm": llm_spec(fake_llm, model),
                "tools": [{"name": "terminal"}],
            }
            created = http.post("/api/conversations", json={"agent": agent})
            assert created.status_code == 201, created.text
            cid = created.json()["id"]
            fake_llm.script(
                model,
                [
                    FakeReply.tool_call("terminal", {"command": "echo $((6 * 7)) sandboxed"}),
                    FakeReply.tool_call("terminal", {"command": "ls /proc | grep -c '^[0-9]'"}),
                    FakeReply.tool_call(
                        "terminal", {"command": f"touch {venv}/planted.pth 2>&1; echo END"}
                    ),
                    FakeReply.text("done"),
                ],
            )
            body = {"role": "user", "content": [{"type": "text", "text": "go"}], "run": True}
            assert http.post(f"/api/conversations/{cid}/events", json=body).status_code == 200
            wait_until(
                lambda: (
                    http.get(f"/api/conversations/{cid}").json()["execution_status"] == "finished"
                ),
                timeout=120,
                what="the run to finish",
            )
        [answer, processes, planted] = _observations(server, cid)
    finally:
        server.stop()

    assert "42 sandboxed" in answer, answer
    assert int(processes.strip().splitlines()[-1]) < 10, processes  # its own PID namespace
    assert "Read-only file system" in planted, planted
    assert not (venv / "planted.pth").exists()
