"""After a goal: a rewind's outcome is shown where it was asked, the goal says its files were
rewound, and what is offered next works (a complete goal is started again, not "resumed"); a
stopped goal's chip shows the cost the cost table adds up to."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, OpenPage, create_conversation, start_goal
from playwright.sync_api import expect
from test_layout import serious_axe_violations
from web_fakes import AGENT_MODEL, agent_and_judge, scripted, verdict

pytestmark = pytest.mark.slow

OBJECTIVE = "write one.txt and two.txt"
ONE_COST = """() => {
  const chip = document.querySelector('#goal-chip .chip-cost');
  const total = document.querySelector('#usage-rows tr.total td.num');
  return Boolean(chip && total && chip.textContent === total.textContent);
}"""


def _write(name: str) -> FakeReply:
    return FakeReply.tool_call("terminal", {"command": f"printf '{name}\\n' > {name}"})


def test_a_rewind_is_answered_where_it_was_asked_with_what_works_next(
    open_page: OpenPage, server_url: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    page = open_page(server_url + "/")
    model = create_conversation(page, fake_llm, workdir)
    agent = [_write("one.txt"), FakeReply.text("one"), _write("two.txt"), FakeReply.text("two")]
    judge = [verdict(1, 2, False, "two.txt is missing"), verdict(2, 2, True)]
    fake_llm.set_responder(model, scripted(agent, judge))
    start_goal(page, OBJECTIVE, 3)
    chip = page.locator("#goal-chip")
    expect(chip).to_have_attribute("data-status", "complete", timeout=WAIT_MS)
    row = page.locator('#round-rows tr[data-round="1"]')
    row.get_by_text("Evidence, verify output and changes").click()

    row.get_by_role("button", name="Rewind to the end of round 1").click()
    dialog = page.get_by_role("dialog", name="Rewind the workspace?")
    expect(dialog).to_contain_text("start it again")
    expect(dialog).not_to_contain_text("Resume the goal")  # refused for a complete goal
    dialog.get_by_role("button", name="Rewind").click()

    outcome = row.locator(".rewind-outcome")
    expect(outcome).to_contain_text(
        "Workspace rewound to the end of round 1: 0 file(s) restored, 1 deleted", timeout=WAIT_MS
    )
    expect(outcome).to_have_attribute("role", "status")
    expect(page.locator("#notices .notice")).to_have_count(0)  # not at the top, far away
    assert not (workdir / "two.txt").exists()
    expect(chip).to_contain_text("files rewound")
    expect(page.locator("#goal-rewound")).to_contain_text("The goal was complete")
    assert serious_axe_violations(page) == []

    outcome.get_by_role("button", name="Start the goal again from here").click()
    objective = page.get_by_label("Objective")
    expect(objective).to_have_value(OBJECTIVE)
    expect(objective).to_be_focused()

    outcome.get_by_role("button", name="Undo the rewind").click()
    expect(outcome).to_contain_text("how it was before the rewind: 1 file(s) restored")
    assert (workdir / "two.txt").read_text() == "two.txt\n"


def test_a_stopped_goal_shows_the_cost_the_table_adds_up_to(
    open_page: OpenPage, server_url: str, priced_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    page = open_page(server_url + "/")
    create_conversation(page, priced_llm, tmp_path / "project", model=AGENT_MODEL)
    working = FakeReply.text("still working", prompt_tokens=2000, completion_tokens=200).delayed(
        2.0
    )
    priced_llm.set_responder(AGENT_MODEL, agent_and_judge(working, False, 1, 2))
    start_goal(page, "keep going", 20)
    judged = page.locator('#round-rows tr[data-round="1"]:not(.current)')
    expect(judged).to_be_visible(timeout=WAIT_MS)

    page.get_by_role("button", name="Stop").click()  # round 2's agent call is under way

    expect(page.locator("#goal-chip")).to_have_attribute(
        "data-status", "interrupted", timeout=WAIT_MS
    )
    # The call under way at the Stop returns (and costs) after the goal recorded its end.
    expect(page.locator("#exec-status")).not_to_have_attribute(
        "data-status", "running", timeout=WAIT_MS
    )
    page.wait_for_function(ONE_COST, timeout=WAIT_MS)
    chip_cost = page.locator("#goal-chip .chip-cost").inner_text()
    assert chip_cost != "$0"
    expect(page.locator("#goal-budget")).to_contain_text(f"Cost {chip_cost}")
