"""What a user does on the web page, as steps the browser tests and the screenshot script share."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Protocol

from openhands.sdk.testing import FakeOpenAIServer
from playwright.sync_api import Page, expect
from waits import EVENT_WAIT_MS

WAIT_MS = EVENT_WAIT_MS
"""How long a step may wait for the page (the machine may be busy)."""


class OpenPage(Protocol):
    """The `open_page` fixture: a fresh browser page at `url`, in a viewport of that size,
    with the browser's colour scheme set to "light" or "dark"."""

    def __call__(
        self, url: str, width: int = 1280, height: int = 900, color_scheme: str = "light"
    ) -> Page: ...


def create_conversation(
    page: Page,
    fake_llm: FakeOpenAIServer,
    workdir: Path,
    model: str | None = None,
    approval: str = "never",
) -> str:
    """Fill the new-conversation form (a fresh model name unless `model`; `approval`: never,
    risky or always); return the model name."""
    model = model or f"web-{uuid.uuid4().hex[:8]}"
    # The page checks the model before it creates the conversation: the fake lists it as
    # served (an empty script adds no reply), as the model's real server would.
    fake_llm.script(model, [])
    page.get_by_label("Ask me before running tools").select_option(approval)
    page.get_by_label("LLM", exact=True).select_option("typed")  # not a stored default
    page.get_by_label("Model", exact=True).fill(f"openai/{model}")
    page.get_by_label("Base URL (optional)", exact=True).fill(fake_llm.base_url)
    page.get_by_label("LLM API key").fill("fake-key")
    page.get_by_label("Working directory").fill(str(workdir))
    before = page.locator("#conv-id").inner_text() if page.locator("#conv-id").is_visible() else ""
    page.get_by_role("button", name="Create conversation").click()
    expect(page.locator("#conversation")).to_be_visible(timeout=WAIT_MS)
    # The new conversation is open (not still the one shown before), with its stream live.
    expect(page.locator("#conv-id")).not_to_have_text(before or "-", timeout=WAIT_MS)
    expect(page.locator("#socket-status")).to_have_text("live", timeout=WAIT_MS)
    return model


def start_goal(
    page: Page,
    objective: str,
    max_iterations: int,
    verify: str = "",
    *,
    max_cost: str = "",
    judge_model: str = "",
    judge_base_url: str = "",
) -> None:
    """Fill the goal form and press Start goal (budget and judge only when given)."""
    page.get_by_label("Objective").fill(objective)
    page.get_by_label("Max iterations", exact=True).fill(str(max_iterations))
    page.get_by_label("Verify command").fill(verify)
    if max_cost or judge_model:
        page.get_by_text("Budget and judge").click()
        page.get_by_label("Max cost (USD)").fill(max_cost)
        page.get_by_label("Judge model").fill(judge_model)
        page.get_by_label("Judge base URL").fill(judge_base_url)
        page.get_by_label("Judge API key").fill("fake-judge-key" if judge_model else "")
    page.get_by_role("button", name="Start goal").click()


def conversation_id(page: Page) -> str:
    """The id of the conversation the page shows."""
    return page.locator("#conv-id").inner_text()
