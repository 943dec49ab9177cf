"""The web page in a real browser: create a conversation, chat, run a goal, stop it."""

from __future__ import annotations

from pathlib import Path

import httpx
from agent_server.harness import FolderServer, HeldReplies
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, OpenPage, conversation_id, create_conversation, start_goal
from playwright.sync_api import Page, expect
from web_fakes import SESSION_KEY, agent_and_judge


def test_new_conversation_appears_in_the_list(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    create_conversation(page, fake_llm, tmp_path / "project")
    listed = page.locator(f'.conversation-item[data-id="{conversation_id(page)}"]')
    expect(listed).to_be_visible()
    expect(listed).to_have_attribute("aria-current", "page")


def test_message_shows_tool_call_arguments_and_collapsed_result(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path, screenshot_dir: Path
) -> None:
    model = create_conversation(page, fake_llm, tmp_path / "project")
    fake_llm.script(
        model,
        [
            FakeReply.tool_call("terminal", {"command": "echo from-the-browser"}),
            FakeReply.text("I ran the command."),
        ],
    )
    page.get_by_label("Message").fill("run something")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".event.from-agent")).to_contain_text("I ran the command.", timeout=WAIT_MS)
    expect(page.locator(".event.action")).to_contain_text("echo from-the-browser")
    observation = page.locator(".event.observation details")
    expect(observation).not_to_have_attribute("open", "")
    expect(observation.locator("summary")).to_contain_text("from-the-browser")
    expect(page.locator("#exec-status")).to_have_text("finished")
    page.screenshot(path=str(screenshot_dir / "message.png"), full_page=True)


def test_goal_chip_reaches_complete(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path, screenshot_dir: Path
) -> None:
    model = create_conversation(page, fake_llm, tmp_path / "project")
    fake_llm.set_responder(model, agent_and_judge(FakeReply.text("done, proof above"), True))
    start_goal(page, "say that the work is done", max_iterations=3, verify="true")
    chip = page.locator("#goal-chip")
    expect(chip).to_have_attribute("data-status", "complete", timeout=WAIT_MS)
    expect(chip).to_contain_text("round 1/3")
    expect(chip).to_contain_text("2 of 2 requirements proven")
    expect(chip).to_contain_text("verify exit 0")
    expect(page.get_by_role("button", name="Stop")).to_be_disabled()
    page.screenshot(path=str(screenshot_dir / "goal-complete.png"), full_page=True)


def test_stop_turns_the_chip_interrupted_and_enables_resume(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path, screenshot_dir: Path
) -> None:
    model = create_conversation(page, fake_llm, tmp_path / "project")
    slow = FakeReply.text("still working").delayed(1.0)
    fake_llm.set_responder(model, agent_and_judge(slow, False, proven=1, total=3))
    start_goal(page, "finish everything", max_iterations=50)
    chip = page.locator("#goal-chip")
    expect(chip).to_have_attribute("data-status", "running", timeout=WAIT_MS)
    page.get_by_role("button", name="Stop").click()
    expect(chip).to_have_attribute("data-status", "interrupted", timeout=WAIT_MS)
    expect(page.get_by_role("button", name="Resume")).to_be_enabled()
    page.screenshot(path=str(screenshot_dir / "goal-interrupted.png"), full_page=True)


def test_session_key_field_unlocks_a_protected_server(
    open_page: OpenPage, keyed_server_url: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    page = open_page(keyed_server_url + "/")
    expect(page.locator("#notices")).to_contain_text("session API key", timeout=WAIT_MS)
    page.get_by_label("Session API key").fill(SESSION_KEY)
    page.get_by_role("button", name="Save key").click()
    model = create_conversation(page, fake_llm, tmp_path / "project")
    fake_llm.script(model, [FakeReply.text("hello from behind the key")])
    page.get_by_label("Message").fill("hi")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".event.from-agent")).to_contain_text(
        "hello from behind the key", timeout=WAIT_MS
    )
    stored = page.evaluate("localStorage.getItem('openhands.sessionApiKey')")
    assert stored == SESSION_KEY


def test_the_servers_llm_settings_fill_the_form_and_run_without_typing_a_key(
    open_page: OpenPage, fake_llm: FakeOpenAIServer, llm_env_server: tuple[str, str]
) -> None:
    url, model = llm_env_server
    page = open_page(url + "/")
    expect(page.get_by_label("Model", exact=True)).to_have_value(f"openai/{model}", timeout=WAIT_MS)
    expect(page.get_by_label("Base URL (optional)")).to_have_value(fake_llm.base_url)
    expect(page.get_by_label("LLM API key")).to_have_attribute(
        "placeholder", "the server's LLM_API_KEY"
    )
    fake_llm.script(model, [])  # served (the page checks the model before it creates)
    page.get_by_role("button", name="Create conversation").click()
    expect(page.locator("#socket-status")).to_have_text("live", timeout=WAIT_MS)
    fake_llm.script(model, [FakeReply.text("hello with the server's key")])
    page.get_by_label("Message").fill("hi")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".event.from-agent")).to_contain_text(
        "hello with the server's key", timeout=WAIT_MS
    )


def test_resume_stays_disabled_until_the_stopped_agent_has_finished_its_step(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    model = create_conversation(page, fake_llm, tmp_path / "project")
    slow = FakeReply.text("still working").delayed(2.0)
    fake_llm.set_responder(model, agent_and_judge(slow, False))
    start_goal(page, "finish everything", max_iterations=50)
    chip = page.locator("#goal-chip")
    status = page.locator("#exec-status")
    expect(status).to_have_attribute("data-status", "running", timeout=WAIT_MS)
    expect(status).to_have_text("goal running")  # one status: the goal's, not the run's
    page.get_by_role("button", name="Stop").click()
    expect(chip).to_have_attribute("data-status", "interrupted", timeout=WAIT_MS)
    # The goal is interrupted at once but the agent is still in its LLM call: the server
    # would answer 409 to Resume, so the button waits for the agent to stop.
    expect(status).to_have_text("running")
    expect(page.get_by_role("button", name="Resume")).to_be_disabled()
    expect(status).to_have_text("goal interrupted", timeout=WAIT_MS)
    page.get_by_role("button", name="Resume").click()
    expect(chip).to_have_attribute("data-status", "running", timeout=WAIT_MS)
    expect(page.locator("#notices .notice-error")).to_have_count(0)


def test_status_is_re_read_after_the_server_crashes_mid_run(
    open_page: OpenPage, crashable_server: FolderServer, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    page = open_page(crashable_server.url + "/")
    model = create_conversation(page, fake_llm, tmp_path / "project")
    reply = HeldReplies(FakeReply.text("never delivered"))  # the run is mid-call when killed
    fake_llm.set_responder(model, reply)
    page.get_by_label("Message").fill("work slowly")
    page.get_by_role("button", name="Send").click()
    status = page.locator("#exec-status")
    try:
        expect(status).to_have_text("running", timeout=WAIT_MS)
        crashable_server.kill()  # SIGKILL: no shutdown work runs, as when a machine dies
    finally:
        reply.release()
    expect(page.locator("#socket-status")).to_have_text("offline", timeout=WAIT_MS)
    crashable_server.start()
    expect(page.locator("#socket-status")).to_have_text("live", timeout=WAIT_MS)
    # The restarted server reloads the conversation, records that its run was interrupted
    # (a ConversationErrorEvent) and sets it to error; the page shows that once, no duplicates.
    expect(status).to_have_text("error", timeout=WAIT_MS)
    ids = page.eval_on_selector_all("#events li.event", "items => items.map(i => i.dataset.id)")
    assert len(ids) == len(set(ids))


def test_a_deleted_conversation_is_reported_instead_of_reconnecting_forever(
    page: Page, fake_llm: FakeOpenAIServer, server_url: str, tmp_path: Path
) -> None:
    create_conversation(page, fake_llm, tmp_path / "project")
    httpx.delete(f"{server_url}/api/conversations/{conversation_id(page)}").raise_for_status()
    expect(page.locator("#notices")).to_contain_text("no longer exists", timeout=WAIT_MS)
    expect(page.locator("#socket-status")).to_have_text("offline")
