"""The settings screens and the new-conversation form that uses them, in Chromium: a default
LLM, a profile and a secret stored once are what new conversations get (no model, URL or key
typed again), no secret value ever reaches the page, the model is checked before a
conversation is created, and every screen holds at 1280 and 390 px with axe-core finding
nothing serious."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from e2e_server import live_server
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, OpenPage
from playwright.sync_api import Page, expect
from test_layout import horizontal_overflow, serious_axe_violations

pytestmark = pytest.mark.slow

PHONE = (390, 844)
DESKTOP = (1280, 900)
LLM_KEY = "sk-settings-e2e-7c41"
SECRET = "tok-settings-e2e-5a90"
TABS = ["llm", "secrets", "mcp", "skills", "plugins"]


@pytest.fixture(scope="module")
def settings_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of this module's own: what it stores changes every new-conversation form."""
    with live_server(tmp_path_factory.mktemp("e2e-settings")) as url:
        yield url


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _settings(page: Page, url: str, tab: str) -> None:
    page.goto(f"{url}/#/settings/{tab}")
    expect(page.locator(f"#tab-{tab}")).to_be_visible(timeout=WAIT_MS)


def _store_default_and_profile(page: Page, url: str, fake: FakeOpenAIServer, model: str) -> None:
    _settings(page, url, "llm")
    page.get_by_label("Default model").fill(f"openai/{model}")
    page.get_by_label("Default base URL").fill(fake.base_url)
    page.get_by_label("Default API key").fill(LLM_KEY)
    page.get_by_role("button", name="Save default LLM").click()
    expect(page.locator("#default-llm-result")).to_contain_text("serves the model", timeout=WAIT_MS)
    expect(page.get_by_label("Default API key")).to_have_value("")  # never shown back
    expect(page.get_by_label("Default API key")).to_have_attribute(
        "placeholder", "a key is stored: leave empty to keep it"
    )
    page.get_by_label("Profile name").fill("judge-ish")
    page.get_by_label("Profile model").fill(f"openai/{model}-profile")
    page.get_by_label("Profile base URL").fill(fake.base_url)
    page.get_by_label("Profile API key").fill(LLM_KEY)
    page.get_by_role("button", name="Save profile").click()
    expect(page.locator('#profile-rows tr[data-name="judge-ish"]')).to_contain_text("stored")


def test_stored_settings_make_a_conversation_without_typing_the_model_again(
    open_page: OpenPage, settings_server: str, tmp_path: Path
) -> None:
    with FakeOpenAIServer() as fake:
        model = f"set-{uuid.uuid4().hex[:8]}"
        fake.require_api_key(LLM_KEY, model)
        # The stored key and the stored secret reach the agent; the page never sees either.
        command = 'echo "the token has ${#E2E_TOKEN} characters"'
        fake.script(
            model,
            [FakeReply.tool_call("terminal", {"command": command}), FakeReply.text("done")],
        )
        page = open_page(settings_server + "/")
        _store_default_and_profile(page, settings_server, fake, model)
        _settings(page, settings_server, "secrets")
        page.get_by_label("Secret name").fill("E2E_TOKEN")
        page.get_by_label("Secret value").fill(SECRET)
        page.get_by_role("button", name="Save secret").click()
        expect(page.locator('#secret-list li[data-name="E2E_TOKEN"]')).to_be_visible()
        assert SECRET not in page.content() and LLM_KEY not in page.content()

        page.get_by_role("link", name="Conversations").click()
        select = page.get_by_label("LLM", exact=True)
        expect(select).to_have_value("default")
        expect(page.locator("#typed-llm")).to_be_hidden()  # no model, URL or key to type
        expect(select.locator("option")).to_contain_text(["the default", "profile judge-ish"])
        expect(page.get_by_role("checkbox", name="E2E_TOKEN")).to_be_checked()
        page.get_by_label("Working directory").fill(str(tmp_path / "project"))
        page.get_by_role("button", name="Create conversation").click()
        expect(page.locator("#socket-status")).to_have_text("live", timeout=WAIT_MS)
        cid = page.locator("#conv-id").inner_text()
        info = httpx.get(f"{settings_server}/api/conversations/{cid}").json()
        assert info["agent"]["llm"]["model"] == f"openai/{model}"

        page.get_by_label("Message", exact=True).fill("check the token")
        page.get_by_role("button", name="Send").click()
        arrived = f"the token has {len(SECRET)} characters"
        result = page.locator(".event.observation").filter(has_text=arrived)
        expect(result).to_have_count(1, timeout=WAIT_MS)
        assert SECRET not in page.content() and LLM_KEY not in page.content()


def test_a_profile_is_picked_for_a_new_conversation(
    open_page: OpenPage, settings_server: str, tmp_path: Path
) -> None:
    with FakeOpenAIServer() as fake:
        model = f"prof-{uuid.uuid4().hex[:8]}"
        fake.require_api_key(LLM_KEY, f"{model}-profile")
        fake.script(model, [FakeReply.text("hi")])  # the default's model is served too
        fake.script(f"{model}-profile", [FakeReply.text("hi")])
        page = open_page(settings_server + "/")
        _store_default_and_profile(page, settings_server, fake, model)
        page.get_by_role("link", name="Conversations").click()
        page.get_by_label("LLM", exact=True).select_option("profile:judge-ish")
        page.get_by_label("Working directory").fill(str(tmp_path / "project"))
        page.get_by_role("button", name="Create conversation").click()
        expect(page.locator("#socket-status")).to_have_text("live", timeout=WAIT_MS)
        cid = page.locator("#conv-id").inner_text()
        info = httpx.get(f"{settings_server}/api/conversations/{cid}").json()
        assert info["agent"]["llm"]["model"] == f"openai/{model}-profile"


def test_a_wrong_base_url_is_named_before_a_conversation_is_created(
    open_page: OpenPage, server_url: str, tmp_path: Path
) -> None:
    page = open_page(server_url + "/")
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    before = httpx.get(f"{server_url}/api/conversations/count").json()
    page.get_by_label("LLM", exact=True).select_option("typed")
    page.get_by_label("Model", exact=True).fill("openai/anything")
    page.get_by_label("Base URL (optional)", exact=True).fill(url)
    page.get_by_label("LLM API key").fill("k")
    page.get_by_label("Working directory").fill(str(tmp_path / "project"))
    page.get_by_role("button", name="Create conversation").click()

    check = page.locator("#create-check")
    expect(check).to_contain_text(url, timeout=WAIT_MS)
    expect(check).to_contain_text("the Base URL field")
    expect(page.get_by_role("button", name="Create it anyway")).to_be_visible()
    assert httpx.get(f"{server_url}/api/conversations/count").json() == before
    assert serious_axe_violations(page) == []


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_settings_screen_fits_and_passes_axe(
    open_page: OpenPage, settings_server: str, size: tuple[int, int]
) -> None:
    page = open_page(settings_server + "/", *size)
    for tab in TABS:
        _settings(page, settings_server, tab)
        expect(page.locator(f'.settings-tabs a[data-tab="{tab}"]')).to_have_attribute(
            "aria-current", "page"
        )
        expect(page.locator(f"#{tab}-result, #default-llm-result").first).to_be_attached()
        assert horizontal_overflow(page) == 0, tab
        assert serious_axe_violations(page) == [], tab
    _settings(page, settings_server, "mcp")
    page.get_by_label("Runs as").select_option("url")
    expect(page.get_by_label("Server URL")).to_be_visible()
    assert serious_axe_violations(page) == []
