"""The browser of a server's conversation: the agent browses through the server, and a
`kill -9` of the server leaves no Chromium behind."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from agent_server.harness import ServerProcess, llm_spec, unique, wait_until
from browser_support import needs_chromium
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from waits import EVENT_WAIT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_chromium]


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def _browsers_of(root: psutil.Process) -> list[psutil.Process]:
    """Chromium processes under `root` (by their profile folder's name)."""
    found = []
    for child in root.children(recursive=True):
        try:
            if any("oh-browser-" in part for part in child.cmdline()):
                found.append(child)
        except psutil.Error:
            continue
    return found


def test_a_server_killed_with_sigkill_leaves_no_chromium(
    tmp_path: Path, fake_llm: FakeOpenAIServer, site: Path
) -> None:
    model = unique("browsing")
    fake_llm.script(
        model,
        [
            FakeReply.tool_call("browser_navigate", {"url": f"file://{site}/index.html"}),
            FakeReply.text("opened"),
        ],
    )
    server = ServerProcess(tmp_path / "conversations").start()
    try:
        with server.client() as http:
            created = http.post(
                "/api/conversations",
                json={
                    "agent": {
                        "kind": "Agent",
                        "llm": llm_spec(fake_llm, model),
                        "tools": [{"name": "browser_tool_set"}],
                    },
                    "workspace": {"kind": "LocalWorkspace", "working_dir": str(site.parent)},
                    "initial_message": {
                        "role": "user",
                        "content": [{"type": "text", "text": "open the page"}],
                    },
                },
            )
            assert created.status_code == 201, created.text
            cid = created.json()["id"]
            wait_until(
                lambda: (
                    http.get(f"/api/conversations/{cid}").json()["execution_status"] == "finished"
                ),
                what="the browsing run",
            )
            events = http.get(
                f"/api/conversations/{cid}/events/search", params={"limit": 100}
            ).json()["items"]
        opened = next(
            e["observation"]
            for e in events
            if e["kind"] == "ObservationEvent" and e["tool_name"] == "browser_navigate"
        )
        assert not opened["is_error"] and "Counter page" in opened["content"][0]["text"]
        assert server.process is not None
        browsers = _browsers_of(psutil.Process(server.process.pid))
        assert browsers, "the conversation's Chromium is not running under the server"

        server.kill()

        deadline = time.monotonic() + EVENT_WAIT
        while any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in browsers):
            assert time.monotonic() < deadline, "Chromium outlived the server"
            time.sleep(0.05)
    finally:
        server.stop()
