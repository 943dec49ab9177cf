"""Fixtures for browser tests: Debian's chromium driven by Playwright, a live server, a fake LLM.

The browser is required, not optional: without /usr/bin/chromium these tests fail and say
how to install it (CI installs it; `make pytest` does too when it runs as root).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_server.harness import FolderServer
from e2e_server import live_server
from openhands.sdk.testing import FakeOpenAIServer
from page_actions import OpenPage
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from web_fakes import SESSION_KEY

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live agent server without session keys; its URL."""
    with live_server(tmp_path_factory.mktemp("e2e-server")) as url:
        yield url


@pytest.fixture(scope="module")
def keyed_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live agent server that requires the session key `SESSION_KEY`; its URL."""
    with live_server(tmp_path_factory.mktemp("e2e-keyed"), api_keys=SESSION_KEY) as url:
        yield url


@pytest.fixture(scope="module")
def llm_env_server(
    tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeOpenAIServer
) -> Iterator[tuple[str, str]]:
    """A live agent server started with LLM_MODEL, LLM_BASE_URL and LLM_API_KEY set for the
    fake LLM; its URL and the model name (without the `openai/` prefix)."""
    model = f"env-{uuid.uuid4().hex[:8]}"
    settings = {
        "LLM_MODEL": f"openai/{model}",
        "LLM_BASE_URL": fake_llm.base_url,
        "LLM_API_KEY": "server-side-key",
    }
    with live_server(tmp_path_factory.mktemp("e2e-llm-env"), **settings) as url:
        yield url, model


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake OpenAI-compatible server."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def priced_llm() -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI server of this test's own, for the priced model names of `web_fakes`
    (AGENT_MODEL, JUDGE_MODEL): no other test's conversation can take its replies."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's headless chromium; fails (never skips) when it is not installed."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} is missing: the web page tests need Debian's chromium. "
            "Install it with `apt-get install chromium` (CI does this)."
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()


KEEPER_URL = "http://127.0.0.1/renderer-keeper"
"""A page kept open on the test servers' site (127.0.0.1, any port) for a context's life: it
is answered by a route, no server behind it."""


@pytest.fixture(scope="module")
def browser_context(browser: Browser) -> Iterator[BrowserContext]:
    """One browser context for a module's pages. A page in a fresh context costs ~1.1 s of
    Chromium's CPU, a new page in this one ~1.0 s when the previous test closed its pages (a
    new renderer process starts), ~0.5 s while a page of the same site stays open: the
    keeper page (KEEPER_URL). `open_page` leaves no storage or cookie behind for the next
    test."""
    context = browser.new_context()
    keeper = context.new_page()
    keeper.route(
        KEEPER_URL,
        lambda route: route.fulfill(body="<title>keeper</title>", content_type="text/html"),
    )
    keeper.goto(KEEPER_URL)
    yield context
    context.close()


CLEAR_STORAGE = """() => {
  try { localStorage.clear(); sessionStorage.clear(); } catch (error) { /* opaque origin */ }
}"""


@pytest.fixture
def open_page(browser_context: BrowserContext) -> Iterator[OpenPage]:
    """Opens a fresh page at a URL; the test fails if any page raised a JavaScript error."""
    pages: list[Page] = []
    errors: list[str] = []

    def open_at(
        url: str, width: int = 1280, height: int = 900, color_scheme: str = "light"
    ) -> Page:
        page = browser_context.new_page()
        pages.append(page)
        page.set_viewport_size({"width": width, "height": height})
        page.emulate_media(color_scheme="dark" if color_scheme == "dark" else "light")
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        return page

    yield open_at
    for page in pages:  # what a test stored (the session key) must not reach the next one
        if not page.is_closed():
            with contextlib.suppress(PlaywrightError):
                page.evaluate(CLEAR_STORAGE)
            page.close()
    browser_context.clear_cookies()
    assert errors == [], f"the page raised JavaScript errors: {errors}"


@pytest.fixture
def page(open_page: OpenPage, server_url: str) -> Page:
    """A fresh browser page on the server's web page."""
    return open_page(server_url + "/")


@pytest.fixture
def crashable_server(tmp_path: Path, fake_llm: FakeOpenAIServer) -> Iterator[FolderServer]:
    """A started agent server of this test's own, which it may crash and restart."""
    # LLM_API_KEY goes only to LLM_BASE_URL: the page's conversations talk to the fake.
    server = FolderServer(
        tmp_path / "crashable", env={"LLM_API_KEY": "fake-key", "LLM_BASE_URL": fake_llm.base_url}
    )
    server.start()
    yield server
    server.stop()


@pytest.fixture
def screenshot_dir() -> Path:
    """Where the tests leave screenshots for a human to look at: /tmp/openhands-e2e, or
    /tmp/openhands-e2e-<uid> when another user of the machine made that one."""
    path = Path("/tmp/openhands-e2e")
    path.mkdir(parents=True, exist_ok=True)
    if not os.access(path, os.W_OK):
        path = path.with_name(f"openhands-e2e-{os.getuid()}")
        path.mkdir(exist_ok=True)
    return path
