"""An agent with `mcp_config` in a conversation: a scripted LLM calls real MCP servers."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from mcp_test_servers import (
    MakeMCPConversation,
    gone,
    marked,
    server_processes,
    silent_config,
    stdio_config,
    wait_for,
)
from openhands.sdk import Message, ObservationEvent, SystemPromptEvent, TextContent, Tool
from openhands.sdk.event import AgentErrorEvent
from openhands.sdk.llm import ImageContent
from openhands.sdk.mcp import MCPServer

pytestmark = pytest.mark.slow


def _observations(conversation: Any) -> list[ObservationEvent]:
    return [e for e in conversation.state.events if isinstance(e, ObservationEvent)]


def _offered(conversation: Any) -> dict[str, dict[str, Any]]:
    prompt = next(e for e in conversation.state.events if isinstance(e, SystemPromptEvent))
    return {tool["function"]["name"]: tool["function"] for tool in prompt.tools}


def test_the_llm_is_offered_each_server_tool_with_its_input_schema(
    make_mcp_conversation: MakeMCPConversation,
) -> None:
    conversation, _ = make_mcp_conversation(mcp_config={"mcpServers": {"t": stdio_config()}})

    offered = _offered(conversation)

    assert {"add", "echo_env", "red_pixel", "finish", "think"} <= set(offered)
    assert offered["add"]["parameters"]["required"] == ["a", "b"]
    assert offered["add"]["parameters"]["properties"]["a"]["type"] == "integer"


def test_a_tool_call_returns_the_servers_text_as_an_observation(
    make_mcp_conversation: MakeMCPConversation, reply: Any
) -> None:
    conversation, _ = make_mcp_conversation(
        [reply.call("add", {"a": 19, "b": 23}), reply.text("done")],
        mcp_config={"mcpServers": {"t": stdio_config()}},
    )

    conversation.send_message("add them")
    conversation.run()

    [observation] = _observations(conversation)
    assert observation.tool_name == "add"
    assert observation.text == "42"
    assert not observation.is_error


def test_an_image_result_reaches_the_llm_as_an_image(
    make_mcp_conversation: MakeMCPConversation, reply: Any
) -> None:
    conversation, llm = make_mcp_conversation(
        [reply.call("red_pixel"), reply.text("it is red")],
        mcp_config={"mcpServers": {"t": stdio_config()}},
    )

    conversation.send_message("show me")
    conversation.run()

    [observation] = _observations(conversation)
    [image] = [part for part in observation.content if isinstance(part, ImageContent)]
    assert image.image_urls[0].startswith("data:image/png;base64,iVBOR")
    tool_message = llm.calls[-1][-1]
    assert tool_message.role == "tool" and image in tool_message.content


def test_a_streamable_http_server_gives_tools_too(
    make_mcp_conversation: MakeMCPConversation, reply: Any, http_server_url: str
) -> None:
    conversation, _ = make_mcp_conversation(
        [reply.call("add", {"a": 1, "b": 2}), reply.text("done")],
        mcp_config={"remote": {"url": http_server_url}},
    )

    conversation.send_message("add")
    conversation.run()

    assert [o.text for o in _observations(conversation)] == ["3"]


def test_with_several_servers_tool_names_start_with_the_server_name(
    make_mcp_conversation: MakeMCPConversation, reply: Any, http_server_url: str
) -> None:
    conversation, _ = make_mcp_conversation(
        [reply.call("local_add", {"a": 2, "b": 2}), reply.text("done")],
        mcp_config={"local": stdio_config(), "remote": {"url": http_server_url}},
    )

    conversation.send_message("add")
    conversation.run()

    offered = _offered(conversation)
    assert {"local_add", "remote_add", "local_red_pixel"} <= set(offered)
    assert "add" not in offered
    assert [o.text for o in _observations(conversation)] == ["4"]


def test_filter_tools_regex_keeps_matching_spec_and_mcp_tools_and_the_builtins(
    make_mcp_conversation: MakeMCPConversation,
) -> None:
    conversation, _ = make_mcp_conversation(
        mcp_config={"t": stdio_config()},
        tools=[Tool(name="echo")],  # the SDK tests' `echo` tool, filtered out
        filter_tools_regex="^(add|red_.*)$",
    )

    assert set(_offered(conversation)) == {"add", "red_pixel", "finish", "think"}


def test_a_server_filtered_down_to_nothing_is_stopped(
    make_mcp_conversation: MakeMCPConversation,
) -> None:
    conversation, _ = make_mcp_conversation(
        mcp_config={"t": stdio_config()}, filter_tools_regex="^nothing$"
    )

    assert set(_offered(conversation)) == {"finish", "think"}
    assert wait_for(lambda: not server_processes())


def test_a_server_that_cannot_start_leaves_the_conversation_working(
    make_mcp_conversation: MakeMCPConversation, reply: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="openhands.sdk.mcp")
    conversation, _ = make_mcp_conversation(
        [
            reply.call("fetch_fetch", {"url": "x"}),
            reply.call("t_add", {"a": 1, "b": 1}),
            reply.text("ok"),
        ],
        mcp_config={
            "fetch": {"command": "no-such-uvx-here", "args": ["mcp-server-fetch"]},
            "t": stdio_config(),
        },
    )

    conversation.send_message("go")
    conversation.run()

    assert "t_add" in _offered(conversation) and "fetch_fetch" not in _offered(conversation)
    assert any(
        "MCP server 'fetch'" in r.message and "'no-such-uvx-here' not found" in r.message
        for r in caplog.records
    )
    errors = [e for e in conversation.state.events if isinstance(e, AgentErrorEvent)]
    assert [e.tool_name for e in errors] == ["fetch_fetch"]
    assert [o.text for o in _observations(conversation)] == ["2"]
    assert conversation.state.execution_status == "finished"


def test_a_server_that_never_answers_delays_the_start_only_by_its_timeout(
    make_mcp_conversation: MakeMCPConversation, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="openhands.sdk.mcp")
    conversation, _ = make_mcp_conversation(
        mcp_config={"silent": silent_config(startup_timeout=1), "t": stdio_config()}
    )

    assert "t_add" in _offered(conversation)
    assert any(
        "'silent'" in r.message and "did not start within 1 s" in r.message for r in caplog.records
    )


def test_a_crash_mid_call_is_an_error_observation_and_the_run_goes_on(
    make_mcp_conversation: MakeMCPConversation, reply: Any
) -> None:
    conversation, _ = make_mcp_conversation(
        [reply.call("crash"), reply.call("add", {"a": 1, "b": 1}), reply.text("I will stop")],
        mcp_config={"t": stdio_config()},
    )

    conversation.send_message("go")
    conversation.run()

    crash, after = _observations(conversation)
    assert crash.is_error and "stopped during the call to 'crash' (exit code 3)" in crash.text
    assert after.is_error and "not running any more" in after.text
    assert conversation.state.execution_status == "finished"


def test_close_stops_every_server_of_the_conversation(
    make_mcp_conversation: MakeMCPConversation,
) -> None:
    conversation, _ = make_mcp_conversation(mcp_config={"a": stdio_config(), "b": stdio_config()})
    assert len(server_processes()) == 2

    conversation.close()

    assert server_processes() == []


def test_a_persisted_conversation_keeps_no_mcp_secret_on_disk(
    make_mcp_conversation: MakeMCPConversation, persistence_dir: Path
) -> None:
    server = MCPServer.model_validate(stdio_config(env={"SERVICE_TOKEN": "tok-on-disk?"}))
    conversation, _ = make_mcp_conversation(
        mcp_config={"t": server}, persistence_dir=persistence_dir
    )
    conversation.close()

    stored = "".join(p.read_text() for p in persistence_dir.rglob("*") if p.is_file())
    assert "SERVICE_TOKEN" in stored and "tok-on-disk?" not in stored


def test_stdio_servers_die_with_a_process_killed_by_sigkill(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys, time
        from openhands.sdk import Agent, LocalConversation
        from openhands.sdk.testing import TestLLM
        agent = Agent(llm=TestLLM(), mcp_config={{"t": {stdio_config()!r}}})
        conversation = LocalConversation(agent, {str(tmp_path)!r})
        client = conversation.tools["add"].executor.client
        child = client.call_tool("spawn_child", {{}}).content[0].text
        print(client.pid, child, flush=True)
        time.sleep(120)
        """
    )
    starter = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert starter.stdout is not None
        pid, marker = starter.stdout.readline().decode().split()
        server_pid = int(pid)
        assert not gone(server_pid) and wait_for(lambda: marked(marker))

        starter.send_signal(signal.SIGKILL)
        starter.wait(timeout=10)

        # The server would see its stdin close; the child it started would not.
        assert wait_for(lambda: gone(server_pid) and not marked(marker))
    finally:
        if starter.poll() is None:
            starter.kill()
            starter.wait(timeout=10)
        if starter.stdout is not None:
            starter.stdout.close()


def test_a_script_that_never_closes_its_conversation_exits_and_leaves_no_server(
    tmp_path: Path,
) -> None:
    script = textwrap.dedent(
        f"""
        from openhands.sdk import Agent, LocalConversation, Message, TextContent
        from openhands.sdk.testing import TestLLM
        llm = TestLLM.from_messages([Message(role="assistant", content=[TextContent(text="hi")])])
        agent = Agent(llm=llm, mcp_config={{"t": {stdio_config()!r}}})
        conversation = LocalConversation(agent, {str(tmp_path)!r})
        client = conversation.tools["add"].executor.client
        print(client.pid, client.call_tool("spawn_child", {{}}).content[0].text, flush=True)
        conversation.send_message("hello")
        conversation.run()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )

    assert done.returncode == 0, done.stderr
    pid, marker = done.stdout.split()[:2]
    assert wait_for(lambda: gone(int(pid)) and not marked(marker))
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def _message(text: str) -> Message:
    return Message(role="assistant", content=[TextContent(text=text)])


def test_the_observation_keeps_the_tool_name_and_text_in_the_stored_event(
    make_mcp_conversation: MakeMCPConversation, reply: Any
) -> None:
    conversation, _ = make_mcp_conversation(
        [reply.call("echo_env", {"name": "NOPE_NOT_SET"}), _message("done")],
        mcp_config={"t": stdio_config()},
    )

    conversation.send_message("go")
    conversation.run()

    [observation] = _observations(conversation)
    stored = json.loads(observation.model_dump_json())
    assert stored["observation"]["tool_name"] == "echo_env"
    assert stored["observation"]["content"] == [{"type": "text", "text": "<unset>"}]
