"""Human approval in the page, against the real server: the waiting call is shown, Approve
runs it, Reject (with a reason) records why and lets the agent go on, and a goal's chip says
it waits for approval until the call is approved."""

from __future__ import annotations

import os
from pathlib import Path

from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, OpenPage, create_conversation, start_goal
from playwright.sync_api import Page, expect
from web_fakes import agent_and_judge, in_turn

PHONE = (390, 844)
DOCS_IMAGES = Path(__file__).parents[2] / "docs" / "img"


def _images(tmp_path: Path) -> Path:
    """Where the screenshots go: docs/img with OH_SCREENSHOTS=1 (to refresh the docs),
    else a temporary folder (a test run leaves the repository as it was)."""
    return DOCS_IMAGES if os.environ.get("OH_SCREENSHOTS") == "1" else tmp_path


def _ask(page: Page, fake_llm: FakeOpenAIServer, workdir: Path, *replies: FakeReply) -> None:
    """A conversation that asks before every call; send a message and wait for the question."""
    model = create_conversation(page, fake_llm, workdir, approval="always")
    fake_llm.set_responder(model, in_turn(list(replies)))
    page.get_by_label("Message").fill("clean the build folder")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#exec-status")).to_have_text("waiting for approval", timeout=WAIT_MS)


def test_approve_runs_the_waiting_call(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    workdir.mkdir()
    _ask(
        page,
        fake_llm,
        workdir,
        FakeReply.tool_call("terminal", {"command": "echo approved > proof.txt"}),
        FakeReply.text("Done."),
    )
    panel = page.get_by_role("region", name="Waiting for your approval")
    expect(panel.locator(".pending-action")).to_contain_text("echo approved > proof.txt")
    assert not (workdir / "proof.txt").exists()

    panel.get_by_role("button", name="Approve").click()

    expect(page.locator("#exec-status")).to_have_text("finished", timeout=WAIT_MS)
    expect(panel).to_be_hidden()
    assert (workdir / "proof.txt").read_text() == "approved\n"


def test_reject_records_the_reason_and_the_agent_goes_on(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    workdir.mkdir()
    _ask(
        page,
        fake_llm,
        workdir,
        FakeReply.tool_call("terminal", {"command": "touch rejected.txt"}),
        FakeReply.text("Understood, I will not touch it."),
    )
    panel = page.get_by_role("region", name="Waiting for your approval")
    panel.get_by_label("Reason for rejecting").fill("not in my repo")

    panel.get_by_role("button", name="Reject").click()

    expect(page.locator("#exec-status")).to_have_text("finished", timeout=WAIT_MS)
    expect(page.locator("#events")).to_contain_text("not in my repo")
    expect(page.locator(".event.from-agent").last).to_contain_text("I will not touch it")
    assert not (workdir / "rejected.txt").exists()


def test_a_goal_chip_waits_for_approval_then_completes(
    open_page: OpenPage, server_url: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    workdir.mkdir()
    page = open_page(server_url + "/", 1280, 900)
    model = create_conversation(page, fake_llm, workdir, approval="always")
    step = FakeReply.tool_call("terminal", {"command": "echo done > goal.txt"})
    fake_llm.set_responder(model, agent_and_judge(step, True))
    start_goal(page, "write goal.txt", 3)

    chip = page.locator("#goal-chip")
    expect(chip.locator(".chip-status")).to_have_text("waiting for approval", timeout=WAIT_MS)
    expect(chip).to_have_attribute("data-waiting", "true")
    page.screenshot(path=str(_images(tmp_path) / "approval-desktop.png"))
    phone = open_page(page.url, *PHONE)
    expect(phone.get_by_role("region", name="Waiting for your approval")).to_be_visible(
        timeout=WAIT_MS
    )
    phone.get_by_role("region", name="Waiting for your approval").scroll_into_view_if_needed()
    phone.screenshot(path=str(_images(tmp_path) / "approval-phone.png"))
    fake_llm.set_responder(model, agent_and_judge(FakeReply.text("goal.txt written"), True))

    page.get_by_role("region", name="Waiting for your approval").get_by_role(
        "button", name="Approve"
    ).click()

    expect(chip).to_have_attribute("data-status", "complete", timeout=WAIT_MS)
    assert (workdir / "goal.txt").read_text() == "done\n"


def test_a_waiting_file_edit_shows_the_diff_it_would_make(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    workdir.mkdir()
    target = workdir / "greeting.txt"
    target.write_text("hello\nworld\n")
    edit = {"command": "str_replace", "path": str(target), "old_str": "world", "new_str": "there"}
    _ask(page, fake_llm, workdir, FakeReply.tool_call("file_editor", edit), FakeReply.text("ok"))
    panel = page.get_by_role("region", name="Waiting for your approval")
    call = panel.locator(".pending-action")

    expect(call.locator(".call-what")).to_have_text(f"edit {target}")
    expect(call.locator(".diff-del")).to_have_text("-world")
    expect(call.locator(".diff-add")).to_have_text("+there")
    expect(call).not_to_contain_text('"old_str"')
    assert target.read_text() == "hello\nworld\n"  # nothing ran before the answer

    panel.get_by_role("button", name="Approve").click()

    expect(page.locator("#exec-status")).to_have_text("finished", timeout=WAIT_MS)
    assert target.read_text() == "hello\nthere\n"


def test_several_waiting_calls_are_approved_all_at_once(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    workdir.mkdir()
    both = FakeReply.tool_calls(
        [
            ("terminal", {"command": "echo a > a.txt"}),
            ("terminal", {"command": "echo b > b.txt"}),
        ]
    )
    _ask(page, fake_llm, workdir, both, FakeReply.text("both written"))
    panel = page.get_by_role("region", name="Waiting for your approval")
    expect(panel.locator(".pending-action")).to_have_count(2)

    panel.get_by_role("button", name="Approve all 2").click()

    expect(page.locator("#exec-status")).to_have_text("finished", timeout=WAIT_MS)
    assert (workdir / "a.txt").read_text() == "a\n" and (workdir / "b.txt").read_text() == "b\n"
