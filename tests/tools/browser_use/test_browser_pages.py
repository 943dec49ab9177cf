"""What the browser tools do on real pages: tabs, history, content, storage, recording."""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import needs_chromium
from openhands.sdk.workspace import claim_workspace, release_workspace
from openhands.tools.browser_use import actions as a
from openhands.tools.browser_use.impl import BrowserToolExecutor
from openhands.tools.browser_use.recording import BROWSER_RECORDING_OUTPUT_DIR

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180), needs_chromium]


@pytest.fixture
def browser(workspace: Path) -> Iterator[BrowserToolExecutor]:
    """A browser for the workspace, without a conversation (no terminal: its own network)."""
    executor = BrowserToolExecutor(working_dir=str(workspace), max_content_chars=1000)
    yield executor
    executor.close()


def _open(browser: BrowserToolExecutor, site: Path, page: str = "index.html") -> None:
    opened = browser(a.BrowserNavigateAction(url=f"file://{site}/{page}"))
    assert not opened.is_error, opened.text


def test_tabs_are_listed_switched_and_closed(browser: BrowserToolExecutor, site: Path) -> None:
    _open(browser, site)
    second = browser(a.BrowserNavigateAction(url=f"file://{site}/second.html", new_tab=True))
    listed = browser(a.BrowserListTabsAction())
    tabs = [line for line in listed.text.splitlines() if line.startswith("[")]
    first_id = next(line[1:5] for line in tabs if "Counter page" in line)
    second_id = next(line[1:5] for line in tabs if "Second page" in line)

    switched = browser(a.BrowserSwitchTabAction(tab_id=first_id))
    closed = browser(a.BrowserCloseTabAction(tab_id=first_id))
    unknown = browser(a.BrowserSwitchTabAction(tab_id="zzzz"))
    state = browser(a.BrowserGetStateAction())

    assert "Second page" in second.text and len(tabs) == 2
    assert "(current)" in next(line for line in tabs if second_id in line)
    assert switched.text.startswith(f"Switched to tab {first_id}: Counter page")
    assert "1 open tab(s)" in closed.text and second_id in closed.text
    assert unknown.is_error and f"the open tabs are {second_id}" in unknown.text
    assert "Title: Second page" in state.text


def test_a_link_click_navigates_and_go_back_returns(
    browser: BrowserToolExecutor, site: Path
) -> None:
    _open(browser, site)
    browser(a.BrowserGetStateAction())

    clicked = browser(a.BrowserClickAction(index=2))
    stale = browser(a.BrowserClickAction(index=0))
    back = browser(a.BrowserGoBackAction())
    no_state = browser(a.BrowserClickAction(index=0))

    assert "the page navigated" in clicked.text
    assert stale.is_error and "browser_get_state" in stale.text
    assert not back.is_error and "title: Counter page" in back.text
    assert no_state.is_error and "There is no element 0" in no_state.text


def test_long_content_is_cut_and_continues_where_the_note_says(
    browser: BrowserToolExecutor, site: Path
) -> None:
    (site / "long.html").write_text(
        "<title>Long</title>" + "".join(f"<p>paragraph {n:04d}</p>" for n in range(400))
    )
    _open(browser, site, "long.html")

    first = browser(a.BrowserGetContentAction())
    assert "start_from_char=1000" in first.text and "paragraph 0000" in first.text
    rest = browser(a.BrowserGetContentAction(start_from_char=1000))

    assert "paragraph 0000" not in rest.text and "paragraph 0100" in rest.text
    past = browser(a.BrowserGetContentAction(start_from_char=10**6))
    assert "past the end" in past.text


def test_typing_into_something_that_takes_no_text_says_so(
    browser: BrowserToolExecutor, site: Path
) -> None:
    _open(browser, site)
    browser(a.BrowserGetStateAction())

    refused = browser(a.BrowserTypeAction(index=0, text="x"))

    assert refused.is_error and "does not take text" in refused.text


class _Files(http.server.SimpleHTTPRequestHandler):
    def end_headers(self) -> None:
        if self.path.endswith(".csv"):
            self.send_header("Content-Disposition", 'attachment; filename="report.csv"')
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def served(workspace: Path) -> Iterator[str]:
    """The workspace's `served/` folder on this machine's loopback (an attachment for .csv).
    A sandboxed browser cannot reach it (tested in test_browser_agent.py), so the workspace
    runs unsandboxed."""
    folder = workspace / "served"
    folder.mkdir()
    claim_workspace(workspace, "off")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Files, directory=str(folder))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    release_workspace(workspace)


def test_a_download_is_saved_where_the_terminal_sees_it(
    browser: BrowserToolExecutor, workspace: Path, served: str
) -> None:
    (workspace / "served" / "data.csv").write_text("a,b\n1,2\n")

    saved = browser(a.BrowserNavigateAction(url=served + "/data.csv"))

    path = workspace / ".agent_tmp" / "browser_downloads" / "report.csv"
    assert not saved.is_error and f"saved as {path}" in saved.text, saved.text
    assert path.read_text() == "a,b\n1,2\n"


def test_storage_set_is_read_back(
    browser: BrowserToolExecutor, workspace: Path, served: str
) -> None:
    # Storage needs a real origin: a data: or file: page has none worth keeping.
    (workspace / "served" / "index.html").write_text("<title>origin</title>")
    browser(a.BrowserNavigateAction(url=served + "/"))

    stored = browser(
        a.BrowserSetStorageAction(
            storage_state={
                "cookies": [{"name": "session", "value": "abc", "url": served}],
                "origins": [
                    {"origin": served, "localStorage": [{"name": "theme", "value": "dark"}]},
                    {"origin": "https://example.com", "localStorage": []},
                ],
            }
        )
    )
    read = json.loads(browser(a.BrowserGetStorageAction()).text)
    bad = browser(a.BrowserSetStorageAction(storage_state={"origins": [{"origin": 3}]}))

    assert "Set 1 cookie(s) and 1 storage item(s)" in stored.text
    assert "https://example.com was not set" in stored.text
    assert {"name": "session", "value": "abc"}.items() <= read["cookies"][0].items()
    assert read["origins"][0]["localStorage"] == [{"name": "theme", "value": "dark"}]
    assert bad.is_error and "storage_state does not fit (origins.0.origin" in bad.text


def test_a_recording_holds_frames_and_actions_and_a_replay_page(
    browser: BrowserToolExecutor, site: Path, workspace: Path
) -> None:
    _open(browser, site)
    not_yet = browser(a.BrowserStopRecordingAction())
    started = browser(a.BrowserStartRecordingAction())
    again = browser(a.BrowserStartRecordingAction())
    browser(a.BrowserGetStateAction())
    browser(a.BrowserClickAction(index=0))
    stopped = browser(a.BrowserStopRecordingAction())

    folders = list((workspace / BROWSER_RECORDING_OUTPUT_DIR).glob("recording-*"))
    assert not_yet.is_error and not started.is_error and again.is_error
    assert len(folders) == 1 and str(folders[0]) in stopped.text
    events = [
        event
        for file in sorted(folders[0].glob("*.json"), key=lambda p: int(p.stem))
        for event in json.loads(file.read_text())
    ]
    kinds = [event["type"] for event in events]
    assert kinds[0] == "meta" and events[0]["data"]["format"] == "openhands-browser-recording"
    assert kinds.count("frame") >= 2
    actions = [event["data"]["tool"] for event in events if event["type"] == "action"]
    assert actions == ["browser_get_state", "browser_click"]
    assert all(
        event["data"]["image"].startswith("data:image/jpeg;base64,")
        for event in events
        if event["type"] == "frame"
    )
    replay = (folders[0] / "replay.html").read_text()
    assert "/*EVENTS*/" not in replay and '"tool": "browser_click"' in replay
