"""The agent browses the app it started in its own terminal, with the sandbox on and off.

A scripted agent (TestLLM) serves a small page with `python -m http.server` in its terminal,
opens it at `localhost`, clicks a button that changes the page, types into a field, and
reads the new state and a screenshot, all with real Chromium. With the sandbox on, the
browser shares the terminal's network namespace (so it reaches that server) and cannot
reach this machine's loopback services.
"""

from __future__ import annotations

import base64
import http.server
import io
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import GREEN, RED, needs_chromium
from openhands.sdk import Agent, LocalConversation, ObservationEvent, Tool
from openhands.sdk.testing import TestLLM
from openhands.sdk.workspace import LocalWorkspace
from openhands.tools.browser_use import (
    BrowserGetContentAction,
    BrowserNavigateAction,
    BrowserObservation,
)
from PIL import Image
from sandbox_support import needs_bwrap

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240), needs_chromium]

SANDBOX_MODES = [pytest.param("bwrap", marks=needs_bwrap), "off"]


def _serve_and_wait(port: int) -> str:
    """The terminal command that starts the page's server and returns once it listens."""
    return (
        f"cd site && python3 -m http.server {port} --bind 127.0.0.1 > ../server.log 2>&1 & "
        f"for i in $(seq 600); do (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && break; "
        "sleep 0.1; done; echo listening"
    )


def _observations(conversation: LocalConversation) -> list[BrowserObservation]:
    return [
        event.observation
        for event in conversation.state.events
        if isinstance(event, ObservationEvent) and isinstance(event.observation, BrowserObservation)
    ]


def _colours(screenshot: str) -> set[object]:
    image = Image.open(io.BytesIO(base64.b64decode(screenshot))).convert("RGB")
    assert image.size == (1280, 800)
    return {colour for _, colour in image.getcolors(maxcolors=1 << 20) or []}


@pytest.mark.parametrize("sandbox", SANDBOX_MODES)
def test_the_agent_uses_the_page_it_serves_from_its_terminal(
    sandbox: str, workspace: Path, site: Path, free_port: int, tool_call, reply
) -> None:
    script = [
        tool_call("terminal", command=_serve_and_wait(free_port)),
        tool_call("browser_navigate", url=f"http://localhost:{free_port}/"),
        tool_call("browser_get_state", include_screenshot=True),
        tool_call("browser_click", index=0),
        tool_call("browser_type", index=1, text="Ada"),
        tool_call("browser_get_state", include_screenshot=True),
        tool_call("browser_get_content"),
        reply("done"),
    ]
    conversation = LocalConversation(
        Agent(
            llm=TestLLM.from_messages(script),
            tools=[Tool(name="terminal"), Tool(name="browser_tool_set")],
        ),
        LocalWorkspace(working_dir=str(workspace), sandbox=sandbox),  # type: ignore[arg-type]
    )
    try:
        conversation.send_message("Open the page you serve and use it.")
        conversation.run()
        navigated, before, clicked, typed, after, content = _observations(conversation)
    finally:
        conversation.close()

    assert not navigated.is_error, navigated.text
    assert "Counter page" in navigated.text
    assert "[0]<button>Click me</button>" in before.text
    assert '[1]<input placeholder="Your name">' in before.text
    assert not clicked.is_error and "Clicked element 0" in clicked.text
    assert "its value is now 'Ada'" in typed.text
    assert "[0]<button>Clicked once</button>" in after.text
    assert '[1]<input placeholder="Your name" value=Ada>' in after.text
    assert "The button was clicked" in content.text and "Hello, Ada" in content.text
    assert before.screenshot_data and after.screenshot_data
    assert RED in _colours(before.screenshot_data) and GREEN not in _colours(before.screenshot_data)
    assert GREEN in _colours(after.screenshot_data)
    assert after.to_llm_content[-1].type == "image"  # type: ignore[union-attr]


class _HostPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<title>host loopback service</title>secret of the host"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def host_service() -> Iterator[int]:
    """A page served on this machine's loopback (outside any sandbox); yields its port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _HostPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    ("sandbox", "reachable"), [pytest.param("bwrap", False, marks=needs_bwrap), ("off", True)]
)
def test_the_hosts_loopback_is_out_of_reach_only_with_the_sandbox(
    sandbox: str, reachable: bool, workspace: Path, host_service: int, tool_call, reply
) -> None:
    script = [
        tool_call("terminal", command="true"),
        tool_call("browser_navigate", url=f"http://127.0.0.1:{host_service}/"),
        tool_call("browser_get_content"),
        reply("done"),
    ]
    conversation = LocalConversation(
        Agent(
            llm=TestLLM.from_messages(script),
            tools=[Tool(name="terminal"), Tool(name="browser_tool_set")],
        ),
        LocalWorkspace(working_dir=str(workspace), sandbox=sandbox),  # type: ignore[arg-type]
    )
    try:
        conversation.send_message("Open the host's page.")
        conversation.run()
        navigated, content = _observations(conversation)
    finally:
        conversation.close()

    if reachable:
        assert not navigated.is_error and "secret of the host" in content.text
    else:
        assert navigated.is_error and "ERR_CONNECTION_REFUSED" in navigated.text
        assert "secret of the host" not in content.text


@pytest.mark.parametrize(
    ("sandbox", "hidden"), [pytest.param("bwrap", True, marks=needs_bwrap), ("off", False)]
)
def test_without_a_terminal_the_browser_sees_what_the_sandbox_shows(
    sandbox: str, hidden: bool, workspace: Path, site: Path, tmp_path: Path
) -> None:
    conversation = LocalConversation(
        Agent(llm=TestLLM.from_messages([]), tools=[Tool(name="browser_tool_set")]),
        LocalWorkspace(working_dir=str(workspace), sandbox=sandbox),  # type: ignore[arg-type]
        persistence_dir=tmp_path / "conversations",
    )
    folder = tmp_path / "conversations" / conversation.id.hex
    try:
        opened = conversation.execute_tool(
            "browser_navigate", BrowserNavigateAction(url=f"file://{site}/index.html")
        )
        listing = conversation.execute_tool(
            "browser_navigate", BrowserNavigateAction(url=f"file://{folder}/")
        )
        content = conversation.execute_tool("browser_get_content", BrowserGetContentAction())
    finally:
        conversation.close()

    assert not opened.is_error and "Counter page" in opened.text
    # The conversation's own folder (its log, its secrets) is hidden from its sandbox.
    visible = not listing.is_error and "events.jsonl" in content.text
    assert visible is not hidden, (listing.text, content.text)
