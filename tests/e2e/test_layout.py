"""The page on a phone (390 px wide), its accessibility basics, disabled buttons that say why,
and error notices that stay until dismissed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, OpenPage, create_conversation, start_goal
from playwright.sync_api import Page, expect
from web_fakes import agent_and_judge

PHONE_WIDTH = 390
A11Y_CHECKS = (Path(__file__).parent / "a11y_basics.js").read_text()

WIDE_REPLY = (
    "A long word: " + "x" * 300 + "\n\n"
    "A long link: https://example.com/" + "segment/" * 40 + "\n\n"
    "```\n" + "wide code line " * 40 + "\n```"
)


def finish_a_goal(page: Page, fake_llm: FakeOpenAIServer, workdir: Path) -> None:
    """A conversation whose one-round goal ended (1 of 2 requirements proven: capped), with
    a reply full of very wide text."""
    model = create_conversation(page, fake_llm, workdir)
    fake_llm.set_responder(model, agent_and_judge(FakeReply.text(WIDE_REPLY), False, 1, 2))
    start_goal(page, "say something wide", 1, "true")
    expect(page.locator("#goal-chip")).to_have_attribute("data-status", "capped", timeout=WAIT_MS)
    expect(page.locator(".event.from-agent")).to_be_visible()


def horizontal_overflow(page: Page) -> int:
    """How many pixels the page is wider than its window (0: no horizontal scroll)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def test_phone_width_has_no_horizontal_scroll(
    open_page: OpenPage, server_url: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    page = open_page(server_url + "/", PHONE_WIDTH, 844)
    assert horizontal_overflow(page) == 0
    finish_a_goal(page, fake_llm, tmp_path / "project")
    expect(page.locator("#round-rows tr")).to_have_count(1)
    page.get_by_text("Budget and judge").click()  # the widest form
    assert horizontal_overflow(page) == 0
    page.locator(".delete-conversation").first.click()
    expect(page.get_by_role("dialog")).to_be_visible()
    assert horizontal_overflow(page) == 0
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()


def test_phone_shows_the_conversation_before_the_new_conversation_form(
    open_page: OpenPage, server_url: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    page = open_page(server_url + "/", PHONE_WIDTH, 844)
    create_conversation(page, fake_llm, tmp_path / "project")
    conversation = page.locator("#conversation").bounding_box()
    form = page.locator("#create-form").bounding_box()
    assert conversation is not None and form is not None
    assert conversation["y"] + conversation["height"] <= form["y"]
    assert conversation["width"] <= PHONE_WIDTH


def test_desktop_puts_the_conversation_beside_the_list(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    create_conversation(page, fake_llm, tmp_path / "project")
    conversation = page.locator("#conversation").bounding_box()
    form = page.locator("#create-form").bounding_box()
    assert conversation is not None and form is not None
    assert conversation["x"] > form["x"] + form["width"]


@pytest.mark.parametrize(
    ("width", "scheme"), [(1280, "light"), (PHONE_WIDTH, "light"), (1280, "dark")]
)
def test_accessibility_basics_hold_with_a_goal_shown(
    open_page: OpenPage,
    server_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    width: int,
    scheme: str,
) -> None:
    page = open_page(server_url + "/", width, 900, scheme)
    assert page.evaluate(A11Y_CHECKS) == []  # the empty page
    finish_a_goal(page, fake_llm, tmp_path / "project")
    page.get_by_text("Budget and judge").click()
    page.locator("#events > li.fold summary").first.click()
    page.locator(".event.observation summary, .event.system summary").first.click()
    assert page.evaluate(A11Y_CHECKS) == []
    page.locator(".delete-conversation").first.click()  # the confirmation dialog
    assert page.evaluate(A11Y_CHECKS) == []


def serious_axe_violations(page: Page) -> list[str]:
    """What axe-core (the accessibility engine browsers' audits use) finds serious or
    critical on the page as it is now, as "rule: first target" lines."""
    results = Axe().run(page)
    return [
        f"{violation['id']}: {violation['nodes'][0]['target'] if violation['nodes'] else ''}"
        for violation in results.response["violations"]
        if violation.get("impact") in ("serious", "critical")
    ]


@pytest.mark.parametrize(
    ("width", "scheme"), [(1280, "light"), (PHONE_WIDTH, "light"), (1280, "dark")]
)
def test_axe_core_finds_no_serious_violation_with_a_goal_shown(
    open_page: OpenPage,
    server_url: str,
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
    width: int,
    scheme: str,
) -> None:
    page = open_page(server_url + "/", width, 900, scheme)
    assert serious_axe_violations(page) == []  # the empty page
    finish_a_goal(page, fake_llm, tmp_path / "project")
    page.get_by_text("Budget and judge").click()
    page.locator("#events > li.fold summary").first.click()
    assert serious_axe_violations(page) == []
    page.locator(".delete-conversation").first.click()  # the confirmation dialog
    assert serious_axe_violations(page) == []


def test_keyboard_focus_follows_the_page_order_and_is_visible(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    create_conversation(page, fake_llm, tmp_path / "project")
    page.reload()  # the address keeps the conversation open; focus starts at the top again
    expect(page.locator("#socket-status")).to_have_text("live", timeout=WAIT_MS)
    stops: list[dict[str, Any]] = []
    for _ in range(60):
        page.keyboard.press("Tab")
        stop = page.evaluate(
            """() => {
                  const node = document.activeElement;
                  const style = getComputedStyle(node);
                  const all = [...document.querySelectorAll('*')];
                  return {
                    name: node.id || node.className || node.tagName,
                    position: all.indexOf(node),
                    outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
                    visible: node.getBoundingClientRect().width > 0,
                  };
                }"""
        )
        if stop["name"] == "BODY":
            break  # past the last stop: the browser's own UI comes next
        stops.append(stop)
    assert stops[0]["name"] == "skip-link"
    assert stops[-1]["name"] == "create"  # every stop was reached
    positions = [stop["position"] for stop in stops]
    assert positions == sorted(positions), f"focus jumped back: {[s['name'] for s in stops]}"
    hidden = [stop["name"] for stop in stops if not (stop["outline"] and stop["visible"])]
    assert hidden == []


def test_disabled_buttons_say_why(page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    stop = page.get_by_role("button", name="Stop")
    model = create_conversation(page, fake_llm, tmp_path / "project")
    expect(stop).to_be_disabled()
    expect(stop).to_have_attribute("title", "No goal is running.")
    expect(stop).to_have_accessible_description("No goal is running.")
    resume = page.get_by_role("button", name="Resume")
    expect(resume).to_have_accessible_description("There is no goal to resume.")
    fake_llm.set_responder(
        model, agent_and_judge(FakeReply.text("working").delayed(1.0), False, 1, 2)
    )
    start_goal(page, "keep going", 20)
    expect(stop).to_be_enabled(timeout=WAIT_MS)
    # A running goal hides the form (its objective is shown above): Stop is what applies.
    expect(page.locator("#goal-form")).to_be_hidden()
    expect(stop).not_to_have_attribute("title", "No goal is running.")
    stop.click()


def test_an_error_stays_until_dismissed_while_confirmations_fade(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    create_conversation(page, fake_llm, tmp_path / "project")
    page.get_by_label("Objective").fill("anything")
    page.get_by_text("Budget and judge").click()
    page.get_by_label("Judge base URL").fill("http://127.0.0.1:9/v1")
    page.get_by_role("button", name="Start goal").click()
    error = page.locator("#notices .notice-error")
    expect(error).to_contain_text("Judge model is needed")
    expect(page.locator("#notices .notice-info")).to_have_count(0, timeout=WAIT_MS)
    expect(error).to_be_visible()  # the confirmation faded, the error did not
    expect(error).to_have_attribute("role", "alert")
    error.get_by_role("button", name="Dismiss").click()
    expect(error).to_have_count(0)
