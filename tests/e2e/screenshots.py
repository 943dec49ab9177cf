"""Take the web page's screenshots in docs/img/: a running goal and a completed one, on a
desktop (1280 px wide) and a phone (390 px wide), what a round changed (desktop), and the
settings screens with the new-conversation form that uses them and its model check.

Run on demand, not by the test suite (it is not a test module):

    uv run python tests/e2e/screenshots.py [output folder, default docs/img]

It starts an agent server and the fake OpenAI server on 127.0.0.1, drives the page with
Debian's chromium exactly as a user would (forms and buttons), and scripts the agent and the
judge so each run gives the same pictures (times and ids aside).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from conftest import CHROMIUM, CHROMIUM_ARGS
from e2e_server import live_server
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, conversation_id, create_conversation, start_goal
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
from web_fakes import AGENT_MODEL, JUDGE_MODEL, REQUIREMENTS, in_turn, verdict, work

OBJECTIVE = (
    "Add a `slugify()` helper in slug.py with tests in tests/test_slug.py that pass, "
    "and document it in the README."
)
VERIFY = "test -f tests/test_slug.py"
DESKTOP = {"width": 1280, "height": 1000}
PHONE = {"width": 390, "height": 844}

ROUND_ONE = work(
    "mkdir -p tests && printf 'import re\\n' > slug.py",
    "I created **slug.py**. Next:\n\n1. write `slugify()`\n2. add the tests",
)
ROUND_TWO = work(
    "printf 'def test_slug(): pass\\n' > tests/test_slug.py",
    "Added `tests/test_slug.py`; the README still needs a section.",
)
ROUND_THREE = work(
    "printf '## slugify\\n' >> README.md && cat README.md",
    "Done:\n\n- `slugify()` in slug.py\n- tests pass\n- README section **slugify**",
)
VERDICTS = [
    verdict(1, 3, False, "no tests yet, README not updated", REQUIREMENTS),
    verdict(2, 3, False, "README does not document slugify()", REQUIREMENTS),
    verdict(3, 3, True, "", REQUIREMENTS),
]


ERRORS: list[str] = []
"""JavaScript errors any page raised: the script fails on them, as the tests do."""


def _new_page(browser: Browser, viewport: dict[str, int]) -> tuple[BrowserContext, Page]:
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    page = context.new_page()
    page.on("pageerror", lambda error: ERRORS.append(str(error)))
    return context, page


def _show(page: Page, url: str, conversation: str) -> None:
    page.goto(f"{url}/#/conversations/{conversation}")
    expect(page.locator("#socket-status")).to_have_text("live", timeout=WAIT_MS)


def _phone_shot(browser: Browser, url: str, conversation: str, path: Path) -> None:
    context, page = _new_page(browser, PHONE)
    try:
        _show(page, url, conversation)
        expect(page.locator("#round-rows tr").first).to_be_visible(timeout=WAIT_MS)
        page.evaluate("document.getElementById('conversation').scrollIntoView()")
        page.screenshot(path=str(path))
    finally:
        context.close()


def _running(browser: Browser, url: str, fake: FakeOpenAIServer, work_dir: Path, out: Path) -> None:
    fake.set_responder(JUDGE_MODEL, in_turn(VERDICTS[:2]))
    slow = FakeReply.tool_call("terminal", {"command": "sleep 15 && python -m pytest -q"})
    fake.set_responder(AGENT_MODEL, in_turn([*ROUND_ONE, *ROUND_TWO, slow]))
    context, page = _new_page(browser, DESKTOP)
    page.goto(url + "/")
    create_conversation(page, fake, work_dir, AGENT_MODEL)
    start_goal(
        page,
        OBJECTIVE,
        8,
        VERIFY,
        max_cost="2",
        judge_model=f"openai/{JUDGE_MODEL}",
        judge_base_url=fake.base_url,
    )
    expect(page.locator("#phase")).to_have_attribute("data-phase", "tool", timeout=WAIT_MS)
    expect(page.locator("#round-rows tr.round")).to_have_count(3, timeout=WAIT_MS)
    page.wait_for_timeout(2500)  # a few seconds on the phase line's clock
    page.screenshot(path=str(out / "goal-running-desktop.png"))
    _phone_shot(browser, url, conversation_id(page), out / "goal-running-phone.png")
    page.get_by_role("button", name="Stop").click()
    expect(page.locator("#goal-chip")).to_have_attribute("data-status", "interrupted")
    context.close()


def _complete(
    browser: Browser, url: str, fake: FakeOpenAIServer, work_dir: Path, out: Path
) -> None:
    fake.set_responder(JUDGE_MODEL, in_turn(VERDICTS))
    fake.set_responder(AGENT_MODEL, in_turn([*ROUND_ONE, *ROUND_TWO, *ROUND_THREE]))
    context, page = _new_page(browser, DESKTOP)
    page.goto(url + "/")
    create_conversation(page, fake, work_dir, AGENT_MODEL)
    start_goal(
        page,
        OBJECTIVE,
        8,
        "test -f README.md",
        max_cost="2",
        judge_model=f"openai/{JUDGE_MODEL}",
        judge_base_url=fake.base_url,
    )
    expect(page.locator("#goal-chip")).to_have_attribute("data-status", "complete", timeout=WAIT_MS)
    judge_calls = page.locator("#usage-rows tr[data-usage=judge] td").last
    expect(judge_calls).to_have_text("3", timeout=WAIT_MS)  # re-read after the last verdict
    page.screenshot(path=str(out / "goal-complete-desktop.png"))
    _phone_shot(browser, url, conversation_id(page), out / "goal-complete-phone.png")
    # What round 2 changed: its files and diff, with the rewind button.
    row = page.locator('#round-rows tr[data-round="2"]')
    row.get_by_text("Evidence, verify output and changes").click()
    row.locator("details.round-diff summary").click()
    expect(row.locator(".changed-file").first).to_be_visible(timeout=WAIT_MS)
    row.locator(".rewind").scroll_into_view_if_needed()
    page.screenshot(path=str(out / "goal-changes-desktop.png"))
    context.close()


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _settings(browser: Browser, root: Path, fake: FakeOpenAIServer, out: Path) -> None:
    """The settings screens, on a server of their own (what they store changes its form)."""
    fake.set_responder(AGENT_MODEL, in_turn([FakeReply.text("hello")]))
    with live_server(root) as url:
        context, page = _new_page(browser, DESKTOP)
        page.goto(f"{url}/#/settings/llm")
        page.get_by_label("Default model").fill(f"openai/{AGENT_MODEL}")
        page.get_by_label("Default base URL").fill(fake.base_url)
        page.get_by_label("Default API key").fill("sk-example")
        page.get_by_role("button", name="Save default LLM").click()
        result = page.locator("#default-llm-result")
        expect(result).to_contain_text("serves the model", timeout=WAIT_MS)
        for name, model in (("fast", AGENT_MODEL), ("strict-judge", JUDGE_MODEL)):
            page.get_by_label("Profile name").fill(name)
            page.get_by_label("Profile model").fill(f"openai/{model}")
            page.get_by_label("Profile base URL").fill(fake.base_url)
            page.get_by_label("Profile API key").fill("sk-example")
            page.get_by_role("button", name="Save profile").click()
            expect(page.locator("#profile-result")).to_contain_text(
                f"Profile {name} saved. The model", timeout=WAIT_MS
            )
        page.get_by_role("button", name="Check profile fast").click()
        expect(page.locator("#profile-result")).to_contain_text("fast:", timeout=WAIT_MS)
        page.screenshot(path=str(out / "settings-llm-desktop.png"), full_page=True)

        page.goto(f"{url}/#/settings/secrets")
        for name, description in (("GITHUB_TOKEN", "read-only, for gh"), ("PYPI_TOKEN", "")):
            page.get_by_label("Secret name").fill(name)
            page.get_by_label("Secret value").fill("example-value")
            page.get_by_label("Secret description").fill(description)
            page.get_by_role("button", name="Save secret").click()
            expect(page.locator(f'#secret-list li[data-name="{name}"]')).to_be_visible()
        page.screenshot(path=str(out / "settings-secrets-desktop.png"), full_page=True)

        page.goto(f"{url}/#/settings/mcp")
        page.get_by_label("Server name").fill("fetch")
        page.get_by_label("Server command").fill("uvx")
        page.get_by_label("Arguments").fill("mcp-server-fetch")
        page.get_by_role("button", name="Save MCP server").click()
        expect(page.locator('#mcp-list li[data-name="fetch"]')).to_be_visible()
        page.get_by_label("Server name").fill("docs")
        page.get_by_label("Runs as").select_option("url")
        page.get_by_label("Server URL").fill("https://docs.example.org/mcp")
        page.get_by_label("Headers").fill("Authorization: Bearer example")
        page.get_by_role("button", name="Save MCP server").click()
        expect(page.locator('#mcp-list li[data-name="docs"]')).to_be_visible()
        page.screenshot(path=str(out / "settings-mcp-desktop.png"), full_page=True)

        page.goto(f"{url}/#/")
        expect(page.get_by_label("LLM", exact=True)).to_have_value("default")
        expect(page.get_by_role("checkbox", name="GITHUB_TOKEN")).to_be_checked()
        page.screenshot(path=str(out / "new-conversation-desktop.png"))
        page.get_by_label("LLM", exact=True).select_option("typed")
        page.get_by_label("Model", exact=True).fill(f"openai/{AGENT_MODEL}")
        page.get_by_label("Base URL (optional)", exact=True).fill(
            f"http://127.0.0.1:{_closed_port()}/v1"
        )
        page.get_by_label("LLM API key").fill("sk-example")
        page.get_by_role("button", name="Create conversation").click()
        expect(page.locator("#create-check")).to_contain_text("Cannot reach", timeout=WAIT_MS)
        page.screenshot(path=str(out / "model-check-desktop.png"))
        context.close()

        context, page = _new_page(browser, PHONE)
        page.goto(f"{url}/#/settings/llm")
        expect(page.locator('#profile-rows tr[data-name="fast"]')).to_be_visible(timeout=WAIT_MS)
        page.screenshot(path=str(out / "settings-llm-phone.png"), full_page=True)
        context.close()


def main(out: Path) -> None:
    """Write the screenshots into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as fake:
        root = Path(tmp)
        (root / "server").mkdir()
        with live_server(root / "server") as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                _running(browser, url, fake, root / "running", out)
                _complete(browser, url, fake, root / "complete", out)
                (root / "settings").mkdir()
                _settings(browser, root / "settings", fake, out)
            finally:
                browser.close()
    if ERRORS:
        raise SystemExit(f"the page raised JavaScript errors: {ERRORS}")
    for name in sorted([*out.glob("goal-*.png"), *out.glob("settings-*.png")]):
        print(name)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/img"))
