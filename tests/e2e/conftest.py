"""Fixtures for browser tests: Debian's chromium driven by Playwright, a live server, a fake LLM.

The browser is required, not optional: without /usr/bin/chromium these tests fail and say
how to install it (CI installs it; `make pytest` does too when it runs as root).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer
from playwright.sync_api import Browser, Page, sync_playwright
from web_fakes import SESSION_KEY

LLM_VARIABLES = ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY")
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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def live_server(root: Path, api_keys: str = "", **llm_env: str) -> Iterator[str]:
    """Run `python -m openhands.agent_server` on a free port until the block ends; its URL.

    `llm_env` sets LLM_MODEL / LLM_BASE_URL / LLM_API_KEY; the developer's own are dropped.
    """
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in LLM_VARIABLES}
    env.update(
        OH_CONVERSATIONS_PATH=str(root / "conversations"),
        OH_WORKSPACE_PATH=str(root / "workspaces"),
        OH_SESSION_API_KEYS=api_keys,
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        **llm_env,
    )
    log_path = root / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "openhands.agent_server", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        else:
            pytest.fail(f"agent server did not start:\n{log_path.read_text()[-3000:]}")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


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


@pytest.fixture
def page(browser: Browser, server_url: str) -> Iterator[Page]:
    """A fresh browser page on the server's web page."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server_url + "/")
    yield page
    context.close()
    assert errors == [], f"the page raised JavaScript errors: {errors}"


@pytest.fixture
def screenshot_dir() -> Path:
    """Where the tests leave screenshots for a human to look at."""
    path = Path("/tmp/openhands-e2e")
    path.mkdir(parents=True, exist_ok=True)
    return path
