"""The conversation list and addresses: a link per conversation that survives a reload, delete
with a confirmation, and statuses that update by themselves."""

from __future__ import annotations

from pathlib import Path

import httpx
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, OpenPage, conversation_id, create_conversation
from playwright.sync_api import Page, expect
from web_fakes import agent_and_judge

POLL_MS = 5_000
"""The list's refresh period (conversations.js POLL_SECONDS)."""


def send(page: Page, text: str) -> None:
    page.get_by_label("Message").fill(text)
    page.get_by_role("button", name="Send").click()


def test_the_address_names_the_open_conversation_and_survives_a_reload(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    model = create_conversation(page, fake_llm, tmp_path / "project")
    opened = conversation_id(page)
    assert page.evaluate("location.hash") == f"#/conversations/{opened}"
    fake_llm.script(model, [FakeReply.text("still here after a reload")])
    send(page, "hello")
    expect(page.locator(".event.from-agent")).to_contain_text("still here", timeout=WAIT_MS)
    page.reload()
    expect(page.locator("#conv-id")).to_have_text(opened, timeout=WAIT_MS)
    expect(page.locator(".event.from-agent")).to_contain_text("still here", timeout=WAIT_MS)
    expect(page.locator(f'.conversation-item[data-id="{opened}"]')).to_have_attribute(
        "aria-current", "page"
    )


def test_a_link_opens_its_conversation_in_a_new_page(
    open_page: OpenPage, server_url: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    first = open_page(server_url + "/")
    create_conversation(first, fake_llm, tmp_path / "project")
    link = first.locator(f'.conversation-item[data-id="{conversation_id(first)}"]')
    href = link.get_attribute("href")
    assert href == f"#/conversations/{conversation_id(first)}"
    second = open_page(f"{server_url}/{href}")
    expect(second.locator("#conv-id")).to_have_text(conversation_id(first), timeout=WAIT_MS)
    expect(second.locator("#socket-status")).to_have_text("live", timeout=WAIT_MS)


def test_a_link_to_an_unknown_conversation_says_so(open_page: OpenPage, server_url: str) -> None:
    missing = "0" * 8 + "-0000-4000-8000-" + "0" * 12
    page = open_page(f"{server_url}/#/conversations/{missing}")
    expect(page.locator("#notices .notice-error")).to_contain_text("not found", timeout=WAIT_MS)
    expect(page.locator("#placeholder")).to_be_visible()
    assert page.evaluate("location.hash") == ""


def test_clicking_a_listed_conversation_opens_it(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    create_conversation(page, fake_llm, tmp_path / "one")
    first = conversation_id(page)
    create_conversation(page, fake_llm, tmp_path / "two")
    page.locator(f'.conversation-item[data-id="{first}"]').click()
    expect(page.locator("#conv-id")).to_have_text(first, timeout=WAIT_MS)
    assert page.evaluate("location.hash") == f"#/conversations/{first}"
    expect(page.locator("#conv-title")).to_be_focused()


def test_delete_asks_first_and_cancel_keeps_the_conversation(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path, server_url: str
) -> None:
    create_conversation(page, fake_llm, tmp_path / "project")
    opened = conversation_id(page)
    row = page.locator(f'.conv-row[data-id="{opened}"]')
    row.get_by_role("button", name="Delete").click()
    dialog = page.get_by_role("dialog", name="Delete this conversation?")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    expect(row).to_be_visible()
    assert httpx.get(f"{server_url}/api/conversations/{opened}").status_code == 200


def test_delete_removes_the_conversation_from_the_list_and_the_server(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path, server_url: str
) -> None:
    create_conversation(page, fake_llm, tmp_path / "project")
    opened = conversation_id(page)
    row = page.locator(f'.conv-row[data-id="{opened}"]')
    row.get_by_role("button", name="Delete").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(row).to_have_count(0, timeout=WAIT_MS)
    expect(page.locator("#placeholder")).to_be_visible()  # it was open: the page closed it
    assert page.evaluate("location.hash") == ""
    assert httpx.get(f"{server_url}/api/conversations/{opened}").status_code == 404
    expect(page.locator("#notices .notice-error")).to_have_count(0)


def test_the_list_shows_new_conversations_and_their_goal_status_by_itself(
    page: Page, fake_llm: FakeOpenAIServer, server_url: str, tmp_path: Path
) -> None:
    expect(page.locator("#conversation-list")).to_be_attached()
    model = "listed-elsewhere"
    fake_llm.set_responder(model, agent_and_judge(FakeReply.text("done"), True))
    llm = {"model": f"openai/{model}", "base_url": fake_llm.base_url, "api_key": "k"}
    body = {"agent": {"kind": "Agent", "llm": {**llm, "usage_id": "agent"}, "tools": []}}
    created = httpx.post(f"{server_url}/api/conversations", json=body).json()
    row = page.locator(f'.conv-row[data-id="{created["id"]}"]')
    expect(row).to_be_visible(timeout=POLL_MS * 3)  # nobody pressed Refresh
    goal = {"objective": "say done", "max_iterations": 2}
    httpx.post(f"{server_url}/api/conversations/{created['id']}/goal", json=goal).raise_for_status()
    expect(row.locator(".conversation-status")).to_have_text("goal complete", timeout=POLL_MS * 6)
    expect(row.locator(".goal-badge")).to_have_text("round 1/2")
    info = httpx.get(f"{server_url}/api/conversations/{created['id']}").json()
    time = row.locator("time")
    expect(time).to_have_attribute("datetime", info["updated_at"], timeout=POLL_MS * 3)
    expect(time).to_have_text("just now")
