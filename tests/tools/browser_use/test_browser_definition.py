"""The browser tools as the LLM and a script see them: names, schemas, params, rendering."""

from __future__ import annotations

import base64
import subprocess
import sys

import pytest
from openhands.sdk.tool import InvalidToolSpecError, Tool, ToolContext, resolve_tool
from openhands.tools.browser_use import BrowserObservation, BrowserToolSet
from openhands.tools.browser_use.rendering import render_element, truncated
from openhands.tools.browser_use.settings import BrowserSettings

REFERENCE_TOOLS = [
    "browser_navigate",
    "browser_click",
    "browser_get_state",
    "browser_get_content",
    "browser_type",
    "browser_scroll",
    "browser_go_back",
    "browser_list_tabs",
    "browser_switch_tab",
    "browser_close_tab",
    "browser_get_storage",
    "browser_set_storage",
    "browser_start_recording",
    "browser_stop_recording",
]


def test_the_tool_set_resolves_by_both_names_to_the_reference_tools(tmp_path) -> None:
    context = ToolContext(working_dir=str(tmp_path))
    by_name = resolve_tool(Tool(name="browser_tool_set"), context)
    by_class = resolve_tool({"name": "BrowserToolSet"}, context)

    assert BrowserToolSet.name == "browser_tool_set"
    assert [tool.name for tool in by_name] == REFERENCE_TOOLS
    assert [tool.name for tool in by_class] == REFERENCE_TOOLS
    assert len({id(tool.executor) for tool in by_name}) == 1  # one browser for them all


def test_the_schemas_carry_the_reference_fields(tmp_path) -> None:
    tools = {t.name: t for t in BrowserToolSet.create(ToolContext(working_dir=str(tmp_path)))}

    def fields(name: str) -> set[str]:
        schema = tools[name].to_openai_tool()["function"]["parameters"]
        return set(schema.get("properties", {})) - {"summary"}  # asked of every tool

    assert fields("browser_navigate") == {"url", "new_tab"}
    assert fields("browser_click") == {"index", "new_tab"}
    assert fields("browser_type") == {"index", "text"}
    assert fields("browser_get_state") == {"include_screenshot"}
    assert fields("browser_get_content") == {"extract_links", "start_from_char"}
    assert fields("browser_scroll") == {"direction"}
    assert fields("browser_switch_tab") == {"tab_id"}
    assert fields("browser_set_storage") == {"storage_state"}
    assert tools["browser_get_state"].annotations.readOnlyHint  # type: ignore[union-attr]


def test_bad_params_fail_when_the_tools_are_built(tmp_path) -> None:
    context = ToolContext(working_dir=str(tmp_path))
    with pytest.raises(InvalidToolSpecError, match="action_timeout_seconds"):
        resolve_tool(Tool(name="browser_tool_set", params={"action_timeout_seconds": -1}), context)
    with pytest.raises(InvalidToolSpecError, match="takes headless"):
        resolve_tool(Tool(name="browser_tool_set", params={"colour": "blue"}), context)


@pytest.mark.slow
def test_importing_the_tools_loads_no_browser_code() -> None:
    code = (
        "import sys, openhands.sdk, openhands.tools;"
        "assert not [m for m in sys.modules if 'browser_use' in m], 'tools';"
        "import openhands.tools.browser_use;"
        "heavy = [m for m in sys.modules if m.rsplit('.', 1)[-1] in "
        "('impl', 'launch', 'session', 'cdp', 'network') and 'browser_use' in m];"
        "assert not heavy, heavy"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_allowed_domains_admit_their_subdomains_only() -> None:
    settings = BrowserSettings(allowed_domains=["example.com"])

    assert settings.allows("https://example.com/a") and settings.allows("http://docs.example.com")
    assert not settings.allows("https://example.com.evil.net/")
    assert not settings.allows("http://localhost:8000/")
    assert settings.allows("about:blank") and BrowserSettings().allows("http://anything/")


def test_elements_render_with_their_number_attributes_and_text() -> None:
    button = {"index": 4, "tag": "button", "attributes": {}, "text": "Save", "in_viewport": True}
    field = {
        "index": 5,
        "tag": "input",
        "attributes": {"type": "text", "placeholder": "Your name"},
        "text": "",
        "in_viewport": False,
    }

    assert render_element(button) == "[4]<button>Save</button>"
    assert render_element(field) == '[5]<input type=text placeholder="Your name"> (off screen)'


def test_truncation_says_where_to_continue() -> None:
    assert truncated("abcdef", 0, 4).startswith("abcd\n\n[Content cut at character 4 of 6")
    assert truncated("abcdef", 4, 4) == "ef"
    assert "past the end" in truncated("abc", 9, 4)


def test_a_screenshot_reaches_the_llm_as_an_image_and_is_saved(tmp_path) -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()
    observation = BrowserObservation.from_text(
        "state", screenshot_data=png, full_output_save_dir=str(tmp_path)
    )

    saved = observation.save_screenshot()
    parts = observation.to_llm_content

    assert saved is not None and saved.read_bytes().startswith(b"\x89PNG")
    assert parts[0].text == "state"  # type: ignore[union-attr]
    assert parts[1].image_urls == [f"data:image/png;base64,{png}"]  # type: ignore[union-attr]
    assert set(observation.model_dump()) == {
        "content",
        "is_error",
        "screenshot_data",
        "full_output_save_dir",
    }


@pytest.mark.slow
def test_starting_the_server_loads_no_browser_or_child_code(tmp_path) -> None:
    code = f"""
import sys, warnings
warnings.simplefilter("ignore")
from fastapi.testclient import TestClient
from openhands.agent_server.app import create_app
from openhands.agent_server.config import ServerConfig

config = ServerConfig.from_env({{
    "OH_CONVERSATIONS_PATH": {str(tmp_path / "conversations")!r},
    "OH_WORKSPACE_PATH": {str(tmp_path / "workspaces")!r},
}})
with TestClient(create_app(config), base_url="http://127.0.0.1") as client:
    assert client.get("/health").status_code == 200
loaded = [m for m in sys.modules if "browser_use" in m or "tom_consult" in m
          or m.endswith(("child_conversation.impl", "services.children"))]
assert not loaded, loaded
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
