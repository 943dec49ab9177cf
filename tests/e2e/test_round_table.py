"""The round table with long text and an open diff: on a desktop its headers keep their words
whole ("Verdict", not "Verdic t"), and on a 390 px phone an open round never makes the page
wider than the window."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, OpenPage, create_conversation, start_goal
from playwright.sync_api import Page, expect
from test_layout import horizontal_overflow, serious_axe_violations
from web_fakes import scripted, verdict

pytestmark = pytest.mark.slow

PHONE = (390, 844)
DESKTOP = (1280, 900)
LONG_LINE = "x" * 400
MISSING = "The README does not document slugify() yet; " * 12

# How many lines each header's text takes (a word broken in two takes two).
HEADER_LINES = """() => [...document.querySelectorAll('.round-table thead th')].map((th) => {
  const range = document.createRange();
  range.selectNodeContents(th);
  const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return [th.textContent.trim(), tops.size];
})"""


def _finish_with_a_wide_round(page: Page, fake_llm: FakeOpenAIServer, workdir: Path) -> None:
    model = create_conversation(page, fake_llm, workdir)
    write = f"printf '{LONG_LINE}\\n' > wide.txt"
    agent = [
        FakeReply.tool_call("terminal", {"command": write}),
        FakeReply.text("I wrote a very wide file: " + LONG_LINE),
        FakeReply.text("done"),
    ]
    judge = [verdict(1, 2, False, MISSING), verdict(2, 2, True)]
    fake_llm.set_responder(model, scripted(agent, judge))
    start_goal(page, "write a wide file", 3, "true")
    expect(page.locator("#goal-chip")).to_have_attribute("data-status", "complete", timeout=WAIT_MS)
    row = page.locator('#round-rows tr[data-round="1"]')
    row.get_by_text("Evidence, verify output and changes").click()
    diff = row.locator("details.round-diff")
    diff.locator("summary").click()
    expect(diff.locator(".changed-file")).to_have_text(["added: wide.txt"], timeout=WAIT_MS)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_an_open_wide_round_keeps_headers_whole_and_the_page_in_the_window(
    open_page: OpenPage,
    server_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    page = open_page(server_url + "/", *size)

    _finish_with_a_wide_round(page, fake_llm, tmp_path / "project")

    assert horizontal_overflow(page) == 0
    if size == DESKTOP:
        lines = dict(page.evaluate(HEADER_LINES))
        assert {name: count for name, count in lines.items() if " " not in name and count > 1} == {}
        assert lines["Verdict"] == lines["Score"] == 1
    diff = page.locator('#round-rows tr[data-round="1"] pre.diff')
    box = diff.bounding_box()
    assert box is not None and box["x"] + box["width"] <= size[0]  # it scrolls inside
    assert serious_axe_violations(page) == []
