"""A goal's progress on the page: the phase line, the round timeline, the requirements, and
the cost and tokens of the agent and the judge."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import httpx
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, conversation_id, create_conversation, start_goal
from playwright.sync_api import Page, expect
from web_fakes import AGENT_MODEL, JUDGE_MODEL, REQUIREMENTS, held, in_turn, verdict, work


def format_cost(usd: float) -> str:
    """The page's way of writing dollars (format.js formatCost)."""
    if usd == 0:
        return "$0"
    return f"${usd:.4f}" if usd < 1 else f"${usd:.2f}"


def run_three_rounds(page: Page, llm: FakeOpenAIServer, workdir: Path) -> None:
    """A goal the judge finds complete in round 3; verify fails until round 3 writes it."""
    llm.set_responder(
        AGENT_MODEL,
        in_turn(
            [*work("echo one", "first"), *work("echo two", "second"), *work("touch ok", "done")]
        ),
    )
    llm.set_responder(
        JUDGE_MODEL,
        in_turn(
            [
                verdict(1, 3, False, "no tests yet", REQUIREMENTS),
                verdict(2, 3, False, "README missing", REQUIREMENTS),
                verdict(3, 3, True, "", REQUIREMENTS),
            ]
        ),
    )
    create_conversation(page, llm, workdir, AGENT_MODEL)
    start_goal(
        page,
        "slugify with tests and docs",
        5,
        "test -f ok",
        max_cost="2",
        judge_model=f"openai/{JUDGE_MODEL}",
        judge_base_url=llm.base_url,
    )
    expect(page.locator("#goal-chip")).to_have_attribute("data-status", "complete", timeout=WAIT_MS)


def test_round_timeline_has_one_row_per_judged_round(
    page: Page, priced_llm: FakeOpenAIServer, tmp_path: Path, server_url: str
) -> None:
    run_three_rounds(page, priced_llm, tmp_path / "project")
    rows = page.locator("#round-rows tr")
    expect(rows).to_have_count(3)
    goal = httpx.get(f"{server_url}/api/conversations/{conversation_id(page)}/goal").json()
    last = goal["last_round"]
    cells = ["Verdict", "Score", "Verify", "Cost", "Missing"]
    expected = [
        ["not yet", "33%", "exit 1", None, "no tests yet"],
        ["not yet", "67%", "exit 1", None, "README missing"],
        [
            "complete",
            "100%",
            "exit 0",
            format_cost(last["agent_cost"] + last["judge_cost"]),
            "\u2013",
        ],
    ]
    for index, values in enumerate(expected):
        row = rows.nth(index)
        expect(row.locator("th")).to_have_text(str(index + 1))
        for name, value in zip(cells, values, strict=True):
            if value is not None:
                shown = row.locator(f'td[data-label="{name}"]')
                if name == "Missing":
                    shown = shown.locator(".missing-text")
                expect(shown).to_have_text(value)


def test_requirements_are_marked_proven_or_unproven(
    page: Page, priced_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    slow = FakeReply.tool_call("terminal", {"command": "sleep 30"})
    priced_llm.set_responder(AGENT_MODEL, in_turn([*work("echo one", "first"), slow]))
    priced_llm.set_responder(
        JUDGE_MODEL, in_turn([verdict(1, 3, False, "README missing", REQUIREMENTS)])
    )
    create_conversation(page, priced_llm, tmp_path / "project", AGENT_MODEL)
    start_goal(
        page,
        "slugify",
        5,
        judge_model=f"openai/{JUDGE_MODEL}",
        judge_base_url=priced_llm.base_url,
    )
    items = page.locator("#requirement-list li")
    expect(items).to_have_count(3, timeout=WAIT_MS)
    expect(page.locator("#requirements-count")).to_have_text("1 of 3 requirements proven")
    expect(items.nth(0)).to_have_attribute("data-satisfied", "true")
    expect(items.nth(0)).to_contain_text("Proven:")
    expect(items.nth(0).locator("code")).to_have_text("slugify()")  # inline Markdown
    expect(items.nth(1)).to_have_attribute("data-satisfied", "false")
    expect(items.nth(1)).to_contain_text("Not proven:")
    expect(items.nth(1)).to_contain_text("no proof yet")
    expect(page.locator("#goal-missing")).to_contain_text("README missing")
    page.get_by_role("button", name="Stop").click()


def test_phase_line_names_the_running_tool_and_its_elapsed_time(
    page: Page, priced_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    slow = FakeReply.tool_call("terminal", {"command": "sleep 30"})
    priced_llm.set_responder(AGENT_MODEL, in_turn([slow]))
    create_conversation(page, priced_llm, tmp_path / "project", AGENT_MODEL)
    start_goal(page, "wait", 3)
    phase = page.locator("#phase")
    expect(phase).to_have_attribute("data-phase", "tool", timeout=WAIT_MS)
    expect(page.locator("#phase-text")).to_have_text("Running tool: terminal")
    elapsed = page.locator("#phase-elapsed")
    # The clock ticks between events (whole seconds while it runs).
    expect(elapsed).to_have_text(re.compile(r"^([2-9]|\d\d) s$"), timeout=WAIT_MS)
    expect(page.locator("#round-rows tr.current")).to_contain_text("in progress: agent working")
    page.get_by_role("button", name="Stop").click()


def test_phase_line_says_the_agent_is_thinking_during_a_plain_run(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    model = create_conversation(page, fake_llm, tmp_path / "project")
    shown = threading.Event()  # the answer comes once the page has shown the thinking
    fake_llm.set_responder(model, held(FakeReply.text("an answer"), shown, WAIT_MS / 1000))
    page.get_by_label("Message").fill("think about it")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#phase")).to_have_attribute("data-phase", "thinking", timeout=WAIT_MS)
    expect(page.locator("#phase-text")).to_have_text("Agent thinking")
    expect(page.locator("#goal-progress")).to_be_hidden()  # no goal: the line shows anyway
    shown.set()
    expect(page.locator(".event.from-agent")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#phase")).to_be_hidden()


def test_phase_line_shows_verifying_then_judging(
    page: Page, priced_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    priced_llm.set_responder(AGENT_MODEL, in_turn([FakeReply.text("done")]))
    judged = threading.Event()  # the verdict comes once the page has shown the judging
    priced_llm.set_responder(JUDGE_MODEL, held(verdict(1, 1, True), judged, WAIT_MS / 1000))
    project = tmp_path / "project"
    create_conversation(page, priced_llm, project, AGENT_MODEL)
    # The check runs until the test has seen it on the page and leaves the file it waits for.
    check = "until [ -e verified ]; do sleep 0.05; done"
    start_goal(
        page,
        "finish",
        3,
        check,
        judge_model=f"openai/{JUDGE_MODEL}",
        judge_base_url=priced_llm.base_url,
    )
    expect(page.locator("#phase-text")).to_have_text(f"Verifying: {check}", timeout=WAIT_MS)
    (project / "verified").touch()
    expect(page.locator("#phase-text")).to_have_text("Judging round 1", timeout=WAIT_MS)
    judged.set()
    expect(page.locator("#goal-chip")).to_have_attribute("data-status", "complete", timeout=WAIT_MS)
    expect(page.locator("#phase")).to_be_hidden()


def test_cost_and_tokens_of_the_agent_and_the_judge_match_the_api(
    page: Page, priced_llm: FakeOpenAIServer, tmp_path: Path, server_url: str
) -> None:
    run_three_rounds(page, priced_llm, tmp_path / "project")
    agent_row = page.locator("#usage-rows tr[data-usage=agent]")
    judge_row = page.locator("#usage-rows tr[data-usage=judge]")
    expect(judge_row.locator("td").last).to_have_text("3", timeout=WAIT_MS)  # three verdicts
    info = httpx.get(f"{server_url}/api/conversations/{conversation_id(page)}").json()
    agent, judge = info["metrics"]["agent"], info["metrics"]["goal-judge"]
    assert agent["accumulated_cost"] > 0 and judge["accumulated_cost"] > 0  # priced models
    expect(agent_row.locator("td")).to_have_text(
        [format_cost(agent["accumulated_cost"]), "15k", "630", "6"]
    )
    expect(judge_row.locator("td")).to_have_text(
        [format_cost(judge["accumulated_cost"]), "5.4k", "480", "3"]
    )
    total = agent["accumulated_cost"] + judge["accumulated_cost"]
    expect(page.locator("#usage-rows tr.total td").first).to_have_text(format_cost(total))
    expect(page.locator("#goal-budget")).to_contain_text("of $2.00")


def test_goal_form_sends_the_budget_and_the_judge_model(
    page: Page, priced_llm: FakeOpenAIServer, tmp_path: Path, server_url: str
) -> None:
    run_three_rounds(page, priced_llm, tmp_path / "project")
    goal = httpx.get(f"{server_url}/api/conversations/{conversation_id(page)}/goal").json()
    assert goal["limits"]["max_cost"] == 2
    judged = priced_llm.requests_for(JUDGE_MODEL)
    assert len(judged) == 3
    assert priced_llm.requests_for(AGENT_MODEL)  # the agent kept its own model
