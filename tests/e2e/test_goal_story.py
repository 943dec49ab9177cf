"""One honest status through a goal's whole life on the page, on a desktop and a phone: running,
waiting for approval (the call shown as a command, "always allow" remembered), interrupted,
resumed and complete; the goal loop's messages labelled as its own; each round's verify output
and the judge's evidence in its row."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, OpenPage, conversation_id, create_conversation, start_goal
from playwright.sync_api import Page, expect
from web_fakes import scripted, verdict

pytestmark = pytest.mark.timeout(300)

PHONE = (390, 844)
DESKTOP = (1280, 900)


def _status(page: Page, text: str, raw: str | None = None) -> None:
    badge = page.locator("#exec-status")
    expect(badge).to_have_text(text, timeout=WAIT_MS)
    if raw is not None:
        expect(badge).to_have_attribute("data-status", raw)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_one_status_through_a_goals_life(
    open_page: OpenPage,
    server_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    workdir = tmp_path / "project"
    page = open_page(server_url + "/", *size)
    model = create_conversation(page, fake_llm, workdir, approval="always")
    after_resume = FakeReply.tool_call("terminal", {"command": "echo second > two.txt"})
    agent = [
        FakeReply.tool_call("terminal", {"command": "echo first > one.txt"}),
        FakeReply.text("round one done"),
        FakeReply.tool_call("think", {"thought": "what round two needs"}).delayed(4.0),
        after_resume,
        FakeReply.text("round two done"),
    ]
    judge = [verdict(1, 2, False, "two.txt is missing"), verdict(2, 2, True)]
    # The resumed run's first reply waits until the page has shown it running: the rest of
    # the goal is quick enough to end between two of the page's checks.
    resumed_seen = threading.Event()
    respond = scripted(agent, judge)

    def held_after_resume(body: dict[str, Any]) -> FakeReply:
        reply = respond(body)
        if reply is after_resume:
            resumed_seen.wait(WAIT_MS / 1000)
        return reply

    fake_llm.set_responder(model, held_after_resume)
    chip = page.locator("#goal-chip")

    start_goal(page, "write one.txt and two.txt", 5)

    # Waiting for approval: said once, in words, everywhere.
    _status(page, "waiting for approval", "waiting_for_confirmation")
    expect(chip.locator(".chip-status")).to_have_text("waiting for approval")
    expect(page.locator("#round-rows tr.current")).to_contain_text("waiting for approval")
    panel = page.get_by_role("region", name="Waiting for your approval")
    expect(panel.locator("pre.command")).to_have_text("$ echo first > one.txt")
    expect(page.locator("#goal-form")).to_be_hidden()  # a running goal: Stop applies
    panel.get_by_role("button", name="Always allow terminal commands starting with “echo”").click()

    # Round 1 judged, round 2's slow reply under way: the goal runs.
    expect(page.locator("#round-rows tr.round")).to_have_count(1, timeout=WAIT_MS)
    _status(page, "goal running")
    expect(page.locator("#round-rows tr.current")).to_contain_text("agent working")
    # Stop once round 2's follow-up is in (its agent's first reply is held 4 s): "agent
    # working" is recorded just before the message is sent.
    expect(page.locator(".event.message.from-goal")).to_have_count(2, timeout=WAIT_MS)

    page.get_by_role("button", name="Stop").click()
    expect(chip).to_have_attribute("data-status", "interrupted", timeout=WAIT_MS)
    _status(page, "goal interrupted")  # never "paused" or "finished" beside a stopped goal
    expect(page.locator("#goal-form")).to_be_visible()

    page.get_by_role("button", name="Resume").click()
    _status(page, "goal running")
    resumed_seen.set()
    expect(chip).to_have_attribute("data-status", "complete", timeout=WAIT_MS)
    _status(page, "goal complete")
    # The second echo ran without a question: the standing approval.
    assert (workdir / "two.txt").read_text() == "second\n"
    rules = httpx.get(f"{server_url}/api/conversations/{conversation_id(page)}").json()
    assert rules["approval_rules"] == [{"tool": "terminal", "command_prefix": "echo"}]
    row = page.locator(f'.conv-row[data-id="{conversation_id(page)}"] .conversation-status')
    expect(row).to_have_text("goal complete")

    # The objective, the follow-up and the resume prompt were the goal loop's, not the person's.
    labels = page.locator(".event.message.from-goal .event-label")
    expect(labels).to_have_count(3)
    expect(labels.first).to_have_text("Goal loop")
    expect(page.locator(".event.message.from-user")).to_have_count(0)


def test_each_round_shows_its_verify_output_and_the_judges_evidence(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    model = create_conversation(page, fake_llm, tmp_path / "project")
    agent = [FakeReply.text("first try"), FakeReply.text("second try")]
    judge = [
        verdict(1, 2, False, "no proof", ["hello is printed", "the test passes"]),
        verdict(2, 2, True, "", ["hello is printed", "the test passes"]),
    ]
    fake_llm.set_responder(model, scripted(agent, judge))
    start_goal(page, "print hello", 3, "echo checked-by-verify; test -f ok || touch ok")
    expect(page.locator("#goal-chip")).to_have_attribute("data-status", "complete", timeout=WAIT_MS)

    first = page.locator('#round-rows tr[data-round="1"]')
    first.get_by_text("Evidence, verify output and changes").click()
    details = first.locator(".round-details-body")

    expect(details).to_contain_text(
        "Verify: echo checked-by-verify; test -f ok || touch ok (exit 0)"
    )
    expect(details.locator(".verify-output")).to_contain_text("checked-by-verify")
    expect(details.locator("li.req").nth(0)).to_contain_text("hello is printed")
    expect(details.locator("li.req").nth(0)).to_have_attribute("data-satisfied", "true")
    expect(details.locator("li.req").nth(1)).to_contain_text("no proof yet")


def test_tool_calls_read_as_commands_and_edits(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    model = create_conversation(page, fake_llm, workdir)
    target = workdir / "notes.md"
    fake_llm.script(
        model,
        [
            FakeReply.tool_call(
                "file_editor", {"command": "create", "path": str(target), "file_text": "alpha\n"}
            ),
            FakeReply.tool_call(
                "file_editor",
                {
                    "command": "str_replace",
                    "path": str(target),
                    "old_str": "alpha",
                    "new_str": "beta",
                },
            ),
            FakeReply.tool_call("terminal", {"command": "cat notes.md"}),
            FakeReply.text("done"),
        ],
    )
    page.get_by_label("Message").fill("write notes")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#exec-status")).to_have_text("finished", timeout=WAIT_MS)

    calls = page.locator(".event.action")
    expect(calls.nth(0).locator(".call-what")).to_have_text(f"create {target}")
    expect(calls.nth(0).locator(".diff-add")).to_have_text("+alpha")
    expect(calls.nth(1).locator(".diff-del")).to_have_text("-alpha")
    expect(calls.nth(1).locator(".diff-add")).to_have_text("+beta")
    expect(calls.nth(2).locator("pre.command")).to_have_text("$ cat notes.md")
    for index in range(3):  # no raw JSON, no null fields
        expect(calls.nth(index)).not_to_contain_text("null")
        expect(calls.nth(index)).not_to_contain_text('"command"')


def test_the_empty_page_explains_goals(page: Page) -> None:
    placeholder = page.locator("#placeholder")
    expect(placeholder).to_contain_text("goal")
    expect(placeholder).to_contain_text("independent judge")
    expect(placeholder).to_contain_text("rewind")
