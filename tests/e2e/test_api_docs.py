"""/docs in a real browser: Swagger UI renders from this server's files alone, under its CSP."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, ConsoleMessage, expect


def test_docs_render_offline_under_the_content_security_policy(
    browser: Browser, server_url: str
) -> None:
    context = browser.new_context()
    page = context.new_page()
    hosts: set[str] = set()
    complaints: list[str] = []
    page.on("request", lambda request: hosts.add(urlsplit(request.url).netloc))

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            complaints.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda error: complaints.append(str(error)))
    try:
        page.goto(f"{server_url}/docs")
        operation = page.locator(".opblock").filter(
            has_text="/api/conversations/{conversation_id}/goal"
        )
        expect(operation.first).to_be_visible(timeout=30_000)
        operation.first.locator(".opblock-summary").click()
        expect(page.get_by_text("Try it out").first).to_be_visible()
    finally:
        context.close()
    assert hosts == {urlsplit(server_url).netloc}
    assert complaints == []


def test_the_workers_browser_leaves_each_e2e_module_a_group_of_its_own(
    request: pytest.FixtureRequest, browser: Browser
) -> None:
    # A session fixture of tests/e2e would send every e2e module to one worker (the rule for
    # the reference's servers and Temporal); the browser is one per worker instead.
    group = request.node.get_closest_marker("xdist_group")
    assert group is not None and group.args[0] == "tests/e2e/test_api_docs.py"
