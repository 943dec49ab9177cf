"""What a goal changed, on the page: each round's files and diff (from the snapshots the goal
loop takes), the whole goal's diff, a rewind with its confirmation, and a capped goal continued
with new limits; on a desktop and a 390 px phone, with axe-core finding nothing serious."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, OpenPage, create_conversation, start_goal
from playwright.sync_api import Page, expect
from test_layout import serious_axe_violations
from web_fakes import scripted, verdict

pytestmark = pytest.mark.timeout(300)

PHONE = (390, 844)
DESKTOP = (1280, 900)


def _write(name: str, text: str) -> FakeReply:
    return FakeReply.tool_call("terminal", {"command": f"printf '{text}\\n' > {name}"})


def _round_details(page: Page, number: int):
    row = page.locator(f'#round-rows tr[data-round="{number}"]')
    row.get_by_text("Evidence, verify output and changes").click()
    return row.locator(".round-details-body")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_each_rounds_changes_the_whole_diff_and_a_rewind(
    open_page: OpenPage,
    server_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    workdir = tmp_path / "project"
    page = open_page(server_url + "/", *size)
    model = create_conversation(page, fake_llm, workdir)
    agent = [
        _write("one.txt", "one"),
        FakeReply.text("round one done"),
        _write("two.txt", "two"),
        FakeReply.text("round two done"),
    ]
    judge = [verdict(1, 2, False, "two.txt is missing"), verdict(2, 2, True)]
    fake_llm.set_responder(model, scripted(agent, judge))
    start_goal(page, "write one.txt and two.txt", 3)
    expect(page.locator("#goal-chip")).to_have_attribute("data-status", "complete", timeout=WAIT_MS)

    first = _round_details(page, 1)
    diff = first.locator("details.round-diff")
    expect(diff.locator("summary")).to_have_text("Files this round changed: 1")
    diff.locator("summary").click()
    expect(diff.locator("summary")).to_contain_text("Round 1: 1 file")
    expect(diff.locator(".changed-file")).to_have_text(["added: one.txt"])
    expect(diff.locator(".diff-add").filter(has_text="+one")).to_have_count(1)
    second = _round_details(page, 2)
    second.locator("details.round-diff summary").click()
    expect(second.locator(".changed-file")).to_have_text(["added: two.txt"])

    whole = page.locator("#goal-changes")
    whole.get_by_text("Show every file this goal changed").click()
    expect(whole.locator(".changed-file")).to_have_text(["added: one.txt", "added: two.txt"])
    assert serious_axe_violations(page) == []

    first.get_by_role("button", name="Rewind to the end of round 1").click()
    dialog = page.get_by_role("dialog", name="Rewind the workspace?")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("the end of round 1")
    assert serious_axe_violations(page) == []
    dialog.get_by_role("button", name="Rewind").click()
    expect(page.locator(".event.rewind-note")).to_have_count(1, timeout=WAIT_MS)
    expect(page.get_by_text("Workspace rewound to the end of round 1")).to_be_visible()
    assert (workdir / "one.txt").read_text() == "one\n"
    assert not (workdir / "two.txt").exists()


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_capped_goal_continues_with_new_limits(
    open_page: OpenPage,
    server_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    page = open_page(server_url + "/", *size)
    model = create_conversation(page, fake_llm, tmp_path / "project")
    agent = [FakeReply.text("first try"), FakeReply.text("second try")]
    judge = [verdict(1, 2, False, "no proof yet"), verdict(2, 2, True)]
    fake_llm.set_responder(model, scripted(agent, judge))
    start_goal(page, "prove it", 1)
    chip = page.locator("#goal-chip")
    expect(chip).to_have_attribute("data-status", "capped", timeout=WAIT_MS)

    form = page.get_by_role("form", name="Continue with new limits")
    expect(form).to_be_visible()
    expect(form).to_contain_text("The goal was capped: reached max_iterations (1)")
    expect(page.get_by_role("button", name="Resume")).to_be_disabled()
    rounds = form.get_by_label("Max iterations (in all)")
    expect(rounds).to_have_value("2")
    assert serious_axe_violations(page) == []

    rounds.fill("1")  # no more room than before: the field itself refuses it
    form.get_by_role("button", name="Continue with new limits").click()
    assert rounds.evaluate("input => input.validity.rangeUnderflow") is True
    expect(chip).to_have_attribute("data-status", "capped")

    rounds.fill("3")
    form.get_by_role("button", name="Continue with new limits").click()
    expect(chip).to_have_attribute("data-status", "complete", timeout=WAIT_MS)
    expect(page.locator("#round-rows tr.round")).to_have_count(2)
    expect(chip).to_contain_text("round 2/3")
    expect(form).to_be_hidden()
