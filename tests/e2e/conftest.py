"""Fixtures for browser tests: Debian's headless chromium driven by Playwright, a live server,
a fake LLM.

The browser is required, not optional: without /usr/bin/chromium-headless-shell these tests
fail and say how to install it (`make pytest` installs it when it runs as root).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from agent_server.harness import FolderServer
from e2e_server import live_server
from openhands.sdk.testing import FakeOpenAIServer
from page_actions import OpenPage
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from web_fakes import SESSION_KEY

CHROMIUM = "/usr/bin/chromium-headless-shell"
"""Debian's chromium-headless-shell: chromium's engine without its browser interface (what
Playwright itself runs headless tests in). A page costs about half the CPU it costs in
chromium's headless mode (0.22 s against 0.40 s, this project's page, docs/performance.md)."""
CHROMIUM_ARGS = [
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


class BrowserRuntime:
    """Playwright's driver and Debian's headless chromium, started once per pytest worker
    (~0.9 s of CPU each time) and lent to one module at a time.

    The sync API runs its event loop in a greenlet of this thread and leaves it set as the
    thread's running loop between calls, which would make every asyncio test that runs after
    it on this worker fail ("cannot be called from a running event loop"). So the loop is
    set only while an e2e module uses the browser (`lent`), and unset in between."""

    def __init__(self) -> None:
        self._playwright = sync_playwright().start()
        self._loop = asyncio.events._get_running_loop()
        self.browser = self._playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        asyncio.events._set_running_loop(None)

    @contextlib.contextmanager
    def lent(self) -> Iterator[Browser]:
        """The browser, with Playwright's loop set as this thread's running loop until the
        block ends."""
        asyncio.events._set_running_loop(self._loop)
        try:
            yield self.browser
        finally:
            asyncio.events._set_running_loop(None)

    def stop(self) -> None:
        asyncio.events._set_running_loop(self._loop)
        try:
            self.browser.close()
        finally:
            self._playwright.stop()  # ends Playwright's loop, which unsets it


@pytest.fixture(scope="session")
def browser_runtime() -> Iterator[BrowserRuntime]:
    """This worker's `BrowserRuntime`; fails (never skips) when chromium is not installed."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} is missing: the web page tests need Debian's headless chromium. "
            "Install it with `apt-get install chromium-headless-shell` (`make browser` does)."
        )
    runtime = BrowserRuntime()
    yield runtime
    runtime.stop()


@pytest.fixture(scope="module")
def browser(browser_runtime: BrowserRuntime) -> Iterator[Browser]:
    """Debian's headless chromium, lent to this module (`BrowserRuntime.lent`)."""
    with browser_runtime.lent() as browser:
        yield browser


IDLE_URL = "http://127.0.0.1/idle-page"
"""Where a page waits between tests: on the test servers' site (127.0.0.1, any port), so its
renderer process stays up for the next test; answered by a route, no server behind it."""


class PagePool:
    """A module's browser context and its idle pages. A page in a fresh context costs ~1.1 s
    of Chromium's CPU; a new page in an open context ~1.0 s, or ~0.5 s while a page of the
    same site keeps its renderer up; an idle page sent to the next URL ~0.2 s. So a test's
    pages come from here and go back after it, left as a new page would be: storage, routes,
    listeners and cookies cleared, parked on IDLE_URL; any other page it opened is closed."""

    def __init__(self, context: BrowserContext) -> None:
        self.context = context
        self.idle: list[Page] = []
        context.route(
            IDLE_URL,
            lambda route: route.fulfill(body="<title>idle</title>", content_type="text/html"),
        )

    def take(self) -> Page:
        """An idle page, else a new one."""
        while self.idle:
            page = self.idle.pop()
            if not page.is_closed():
                # The tab in front: Chromium throttles the timers of a hidden one (to once a
                # second, later once a minute), and the page's polling with them.
                page.bring_to_front()
                return page
        return self.context.new_page()

    def close_others(self) -> None:
        """Close the context's pages that are not idle here (a popup a test opened): left
        open, a page of a stopped server keeps reconnecting in the renderer the pool's pages
        share."""
        for page in self.context.pages:
            if page not in self.idle:
                page.close()

    def give_back(self, page: Page) -> None:
        """Clear what the test left on `page` and park it on IDLE_URL for the next test."""
        with contextlib.suppress(PlaywrightError):
            page.evaluate(CLEAR_STORAGE)
        try:
            page.unroute_all(behavior="ignoreErrors")
            page.goto(IDLE_URL)
        except PlaywrightError:
            page.close()
            return
        self.idle.append(page)


@pytest.fixture(scope="module")
def page_pool(browser: Browser) -> Iterator[PagePool]:
    """One browser context for a module's pages, and its idle pages (`PagePool`)."""
    context = browser.new_context()
    yield PagePool(context)
    context.close()


CLEAR_STORAGE = """() => {
  try { localStorage.clear(); sessionStorage.clear(); } catch (error) { /* opaque origin */ }
}"""


@pytest.fixture
def open_page(page_pool: PagePool) -> Iterator[OpenPage]:
    """Opens a page at a URL (an idle page of the pool, or a new one); the test fails if any
    of its pages raised a JavaScript error."""
    pages: list[tuple[Page, Callable[[PlaywrightError], None]]] = []
    errors: list[str] = []

    def open_at(
        url: str, width: int = 1280, height: int = 900, color_scheme: str = "light"
    ) -> Page:
        page = page_pool.take()
        page.set_viewport_size({"width": width, "height": height})
        page.emulate_media(color_scheme="dark" if color_scheme == "dark" else "light")

        def on_error(error: PlaywrightError) -> None:
            errors.append(str(error))

        page.on("pageerror", on_error)
        pages.append((page, on_error))
        page.goto(url)
        return page

    yield open_at
    for page, on_error in pages:  # what a test stored (the session key) must not reach the next one
        if not page.is_closed():
            page.remove_listener("pageerror", on_error)
            page_pool.give_back(page)
    page_pool.close_others()
    page_pool.context.clear_cookies()
    assert errors == [], f"the page raised JavaScript errors: {errors}"


@pytest.fixture
def page(open_page: OpenPage, server_url: str) -> Page:
    """A page of the pool (`open_page`) on the server's web page."""
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
