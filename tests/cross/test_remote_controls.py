"""RemoteConversation's controls against a real agent server: interrupt, title, navigate,
secrets, condense, plugins, switching the LLM, asking the agent. Each must mean what the
same call means on a LocalConversation, refuse a bad argument before any request with the
local error, and meet the features it touches (a fork, a restart, a later run)."""

from __future__ import annotations

import json
import sys
import threading
import uuid
from pathlib import Path

import httpx
import pytest
from live_server import LiveServer, Models, make_llm
from openhands.sdk import Agent, Tool
from openhands.sdk.context.condenser import LLMSummarizingCondenser
from openhands.sdk.conversation import CondenserUnavailableError, ConversationAlreadyRunningError
from openhands.sdk.conversation.errors import UnknownEventError
from openhands.sdk.errors import InvalidArgumentError, NotFoundError
from openhands.sdk.event import Condensation, MessageEvent, ObservationEvent
from openhands.sdk.plugin import PluginSource
from openhands.sdk.remote import (
    RemoteConversation,
    RemoteRequestError,
    RemoteServerError,
    RemoteWorkspace,
)
from openhands.sdk.secret import StaticSecret
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from pydantic import SecretStr
from waits import EVENT_WAIT

TOOLS_SERVER = Path(__file__).parents[1] / "sdk" / "mcp" / "servers" / "tools_server.py"


def _texts(conversation: RemoteConversation, source: str = "agent") -> list[str]:
    return [
        event.llm_message.text
        for event in conversation.state.events
        if isinstance(event, MessageEvent) and event.source == source
    ]


def _sent(fake_llm: FakeOpenAIServer, model: str) -> list[tuple[str, str]]:
    """What the last LLM request of `model` carried, system prompt left out."""
    messages = fake_llm.requests_for(model)[-1]["messages"]
    return [(m["role"], str(m["content"])) for m in messages if m["role"] != "system"]


def test_interrupt_ends_the_run_at_once_and_the_next_run_goes_on(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.script(models.agent, [FakeReply.text("too late").delayed(5), FakeReply.text("on")])
    conversation.send_message("start")
    runner = threading.Thread(target=conversation.run)
    runner.start()
    waited = threading.Event()
    while not fake_llm.requests_for(models.agent) and not waited.wait(0.02):
        assert runner.is_alive(), "the run ended before its LLM call"

    conversation.interrupt()
    runner.join(EVENT_WAIT)

    assert not runner.is_alive(), "run() did not return after interrupt()"
    assert conversation.state.execution_status.value == "paused"
    assert "too late" not in _texts(conversation)
    conversation.send_message("go on")
    conversation.run()
    assert _texts(conversation) == ["on"]


def test_interrupt_without_a_run_pauses(conversation: RemoteConversation) -> None:
    conversation.interrupt()

    assert conversation.state.execution_status.value == "paused"


def test_a_title_is_saved_and_kept_across_a_restart(
    fake_llm: FakeOpenAIServer, models: Models, tmp_path: Path
) -> None:
    (tmp_path / "server").mkdir()
    live = LiveServer(tmp_path / "server").start()
    try:
        workspace = RemoteWorkspace(host=live.url, working_dir=str(tmp_path / "project"))
        agent = Agent(llm=make_llm(fake_llm, models.agent), tools=[])
        first = RemoteConversation(agent, workspace)
        first.set_title("  Release notes  ")
        with pytest.raises(InvalidArgumentError, match="title"):
            first.set_title("   ")
        with pytest.raises(InvalidArgumentError, match="title"):
            first.set_title("x" * 201)
        assert first.state.title == "Release notes"
        conversation_id = first.id
        first.close()
        live.stop()
        live.start()

        again = RemoteConversation(agent, workspace, conversation_id=conversation_id)
        try:
            assert again.state.title == "Release notes"
        finally:
            again.close()
    finally:
        live.stop()


def test_navigate_moves_the_head_and_the_next_run_sees_only_that_branch(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.script(models.agent, [FakeReply.text(t) for t in ("A1", "A2", "B2")])
    conversation.send_message("first question")
    conversation.run()
    conversation.send_message("second question")
    conversation.run()
    [first_answer] = [
        e.id
        for e in conversation.state.events
        if isinstance(e, MessageEvent) and e.llm_message.text == "A1"
    ]

    conversation.navigate_to(first_answer)
    conversation.send_message("another second question")
    conversation.run()

    assert _sent(fake_llm, models.agent) == [
        ("user", "first question"),
        ("assistant", "A1"),
        ("user", "another second question"),
    ]
    assert _texts(conversation) == ["A1", "A2", "B2"]  # nothing was deleted
    with pytest.raises(UnknownEventError, match="no-such-event"):
        conversation.navigate_to("no-such-event")


def test_navigate_during_a_run_is_refused(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.script(models.agent, [FakeReply.text("slow").delayed(3)])
    conversation.send_message("take your time")
    runner = threading.Thread(target=conversation.run)
    runner.start()
    waited = threading.Event()
    while not fake_llm.requests_for(models.agent) and not waited.wait(0.02):
        assert runner.is_alive(), "the run ended before its LLM call"
    try:
        with pytest.raises(ConversationAlreadyRunningError):
            conversation.navigate_to(None)
    finally:
        runner.join(EVENT_WAIT)
    assert _texts(conversation) == ["slow"]


def test_secrets_reach_the_terminal_masked_in_the_conversation_and_its_fork(
    conversation: RemoteConversation,
    fake_llm: FakeOpenAIServer,
    models: Models,
    server: LiveServer,
) -> None:
    value = "s3cret-" + uuid.uuid4().hex[:8]
    call = FakeReply.tool_call("terminal", {"command": 'echo "token=$API_TOKEN/$OTHER"'})
    fake_llm.script(models.agent, [call, FakeReply.text("done"), call, FakeReply.text("again")])

    conversation.update_secrets(
        {"API_TOKEN": value, "OTHER": StaticSecret(value=SecretStr("other-value"))}
    )
    conversation.send_message("print it")
    conversation.run()
    fork = conversation.fork()
    try:
        fork.send_message("print it in the fork")
        fork.run()
        outputs = [
            str(e.observation.model_dump())
            for c in (conversation, fork)
            for e in c.state.events
            if isinstance(e, ObservationEvent)
        ]
    finally:
        fork.close()

    assert len(outputs) == 3  # the fork copies the first one
    assert all("token=<secret-hidden>/<secret-hidden>" in o for o in outputs), outputs
    events = httpx.get(
        f"{server.url}/api/conversations/{conversation.id}/events/search", params={"limit": 100}
    ).text
    assert value not in events


def test_bad_secrets_are_refused_before_any_request(conversation: RemoteConversation) -> None:
    with pytest.raises(InvalidArgumentError, match="1TOKEN"):
        conversation.update_secrets({"1TOKEN": "x"})
    with pytest.raises(InvalidArgumentError, match="NUMBER"):
        conversation.update_secrets({"NUMBER": 42})  # type: ignore[dict-item]


def test_condense_needs_a_condenser_and_then_summarizes_the_history(
    conversation: RemoteConversation,
    fake_llm: FakeOpenAIServer,
    models: Models,
    remote_workspace: RemoteWorkspace,
) -> None:
    with pytest.raises(CondenserUnavailableError, match="LLMSummarizingCondenser"):
        conversation.condense()

    summarizer = f"summary-{models.agent}"
    fake_llm.script(models.agent, [FakeReply.text(f"answer {i}") for i in range(4)])
    fake_llm.script(summarizer, [FakeReply.text("THE SUMMARY")])
    condenser = LLMSummarizingCondenser(
        llm=make_llm(fake_llm, summarizer, usage_id="condenser"), max_size=40
    )
    agent = Agent(llm=make_llm(fake_llm, models.agent), tools=[], condenser=condenser)
    condensing = RemoteConversation(agent, remote_workspace)
    try:
        for i in range(3):
            condensing.send_message(f"question {i}")
            condensing.run()
        condensing.condense()
        condensing.send_message("last question")
        condensing.run()
        condensations = [e for e in condensing.state.events if isinstance(e, Condensation)]
        usage = condensing.conversation_stats.usage_to_metrics
    finally:
        condensing.close()

    assert len(condensations) == 1 and condensations[0].summary == "THE SUMMARY"
    assert "THE SUMMARY" in str(fake_llm.requests_for(models.agent)[-1]["messages"])
    assert "condenser" in usage  # the summarizer's cost is counted


def test_a_plugin_loaded_between_runs_gives_the_agent_its_tools(
    fake_llm: FakeOpenAIServer, models: Models, remote_workspace: RemoteWorkspace, tmp_path: Path
) -> None:
    plugin = tmp_path / "plugins" / "adder"
    (plugin / ".plugin").mkdir(parents=True)
    (plugin / ".plugin" / "plugin.json").write_text(json.dumps({"name": "adder"}))
    servers = {"tools": {"command": sys.executable, "args": [str(TOOLS_SERVER)]}}
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    fake_llm.script(
        models.agent, [FakeReply.tool_call("add", {"a": 2, "b": 40}), FakeReply.text("42")]
    )
    conversation = RemoteConversation(
        Agent(llm=make_llm(fake_llm, models.agent), tools=[]), remote_workspace
    )
    try:
        with pytest.raises(RemoteRequestError, match="nope"):
            conversation.load_plugin(str(tmp_path / "nope"))
        with pytest.raises(InvalidArgumentError, match="ref"):
            conversation.load_plugin(PluginSource(source=str(plugin), ref="main"))
        conversation.load_plugin(PluginSource(source=str(plugin)))
        conversation.send_message("add 2 and 40")
        conversation.run()
        outputs = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    finally:
        conversation.close()

    assert len(outputs) == 1 and "42" in str(outputs[0].observation.model_dump())


def test_a_switched_llm_drives_the_next_run(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    other = f"other-{models.agent}"
    fake_llm.script(models.agent, [FakeReply.text("from the first")])
    fake_llm.script(other, [FakeReply.text("from the second")])
    conversation.send_message("one")
    conversation.run()

    conversation.switch_llm(make_llm(fake_llm, other, usage_id="second"))
    conversation.send_message("two")
    conversation.run()

    assert _texts(conversation) == ["from the first", "from the second"]
    assert _sent(fake_llm, other)[:2] == [("user", "one"), ("assistant", "from the first")]
    assert conversation.agent.llm.model == f"openai/{other}"
    assert conversation.state.agent.llm.usage_id == "second"
    assert "second" in conversation.conversation_stats.usage_to_metrics


def test_switch_profile_uses_the_servers_profile_and_names_the_ones_there_are(
    conversation: RemoteConversation,
    fake_llm: FakeOpenAIServer,
    models: Models,
    server: LiveServer,
) -> None:
    stored = f"stored-{models.agent}"
    name = f"p{uuid.uuid4().hex[:8]}"
    fake_llm.script(stored, [FakeReply.text("from the profile")])
    llm = make_llm(fake_llm, stored)
    saved = httpx.post(
        f"{server.url}/api/profiles/{name}",
        json={"llm": json.loads(llm.model_dump_json(context={"expose_secrets": True}))},
    )
    assert saved.status_code == 201, saved.text

    with pytest.raises(NotFoundError, match=name):
        conversation.switch_profile("missing")
    with pytest.raises(InvalidArgumentError, match="profile_name"):
        conversation.switch_profile("../escape")
    conversation.switch_profile(name)
    conversation.send_message("hello")
    conversation.run()

    assert _texts(conversation) == ["from the profile"]
    assert conversation.agent.llm.model == f"openai/{stored}"
    assert conversation.agent.llm.usage_id == f"profile:{name}"


def test_ask_agent_answers_without_recording_anything(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.script(models.agent, [FakeReply.text("hi"), FakeReply.text("You said hello.")])
    conversation.send_message("hello")
    conversation.run()
    before = len(conversation.state.events)

    answer = conversation.ask_agent("What did I say?")

    assert answer == "You said hello."
    role, asked = _sent(fake_llm, models.agent)[-1]
    assert role == "user" and "What did I say?" in asked
    assert len(conversation.state.events) == before
    assert conversation.state.execution_status.value == "finished"
    with pytest.raises(InvalidArgumentError, match="question"):
        conversation.ask_agent("  ")


def test_ask_agent_says_when_the_llm_fails(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.script(models.agent, [FakeReply.error(500, "the model is down")])

    with pytest.raises(RemoteServerError, match="502"):
        conversation.ask_agent("Are you there?")


def test_a_closed_conversation_refuses_every_control(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    from openhands.sdk.conversation import ConversationClosedError

    conversation.close()
    calls = [
        conversation.interrupt,
        lambda: conversation.set_title("t"),
        lambda: conversation.navigate_to(None),
        lambda: conversation.update_secrets({"A": "b"}),
        conversation.condense,
        lambda: conversation.load_plugin("x"),
        lambda: conversation.switch_llm(make_llm(fake_llm, models.agent)),
        lambda: conversation.switch_profile("p"),
        lambda: conversation.ask_agent("q"),
    ]
    for call in calls:
        with pytest.raises(ConversationClosedError):
            call()


def test_secrets_given_at_create_reach_the_terminal(
    fake_llm: FakeOpenAIServer, models: Models, remote_workspace: RemoteWorkspace
) -> None:
    call = FakeReply.tool_call("terminal", {"command": 'echo "key=$DEPLOY_KEY"'})
    fake_llm.script(models.agent, [call, FakeReply.text("done")])
    agent = Agent(llm=make_llm(fake_llm, models.agent), tools=[Tool(name="terminal")])
    conversation = RemoteConversation(agent, remote_workspace, secrets={"DEPLOY_KEY": "k-123"})
    try:
        conversation.send_message("show it")
        conversation.run()
        [output] = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    finally:
        conversation.close()

    shown = str(output.observation.model_dump())
    assert "key=<secret-hidden>" in shown and "k-123" not in shown
