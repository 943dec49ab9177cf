"""An agent on a model without tool calling: the real terminal and file editor, driven by a
fake OpenAI-compatible server that answers in the prompt format (text, no `tool_calls`).

The same scenario scripted with native tool calls gives the same events; a malformed call is
an error the agent sees and corrects; a goal completes with `verify` proving the work.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk import (
    ActionEvent,
    Agent,
    AgentErrorEvent,
    ConversationExecutionStatus,
    Event,
    LocalConversation,
    MessageEvent,
    ObservationEvent,
    Tool,
)
from openhands.sdk.conversation.goal import run_goal
from openhands.sdk.llm import LLM
from openhands.sdk.security import ConfirmRisky, LLMSecurityAnalyzer, SecurityRisk
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from pydantic import SecretStr

pytestmark = pytest.mark.slow  # runs a real shell and a fake model server

SCRIPT = 'def main():\n    print("hello from the prompt")\n\n\nmain()'
CREATE_TEXT = (
    "I will write the script.\n<function=file_editor>\n<parameter=command>create</parameter>\n"
    f"<parameter=path>hello.py</parameter>\n<parameter=file_text>\n{SCRIPT}\n</parameter>\n"
)  # cut where the stop word `</function` ends a real reply
RUN_TEXT = "Now run it.\n<function=terminal>\n<parameter=command>python3 hello.py</parameter>\n</"
FINISH_TEXT = (
    "<function=finish>\n<parameter=message>hello.py prints its greeting.</parameter>\n</function>"
)


def prompt_replies() -> list[FakeReply]:
    return [FakeReply.text(CREATE_TEXT), FakeReply.text(RUN_TEXT), FakeReply.text(FINISH_TEXT)]


def native_replies() -> list[FakeReply]:
    return [
        FakeReply.tool_call(
            "file_editor",
            {"command": "create", "path": "hello.py", "file_text": SCRIPT},
            content="I will write the script.",
        ),
        FakeReply.tool_call("terminal", {"command": "python3 hello.py"}, content="Now run it."),
        FakeReply.tool_call("finish", {"message": "hello.py prints its greeting."}),
    ]


@pytest.fixture
def fake_model() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def agent_on(server: FakeOpenAIServer, *, native: bool) -> Agent:
    llm = LLM(
        model="openai/local-model",
        base_url=server.base_url,
        api_key=SecretStr("none"),
        native_tool_calling=native,
        num_retries=0,
    )
    return Agent(llm=llm, tools=[Tool(name="terminal"), Tool(name="file_editor")])


def terminal_text(command: str, risk: str) -> str:
    """A reply calling the terminal with a stated risk, cut by the stop word."""
    return (
        f"<function=terminal>\n<parameter=command>{command}</parameter>\n"
        f"<parameter=security_risk>{risk}</parameter>\n"
    )


def run(server: FakeOpenAIServer, workspace: Path, *, native: bool) -> LocalConversation:
    conversation = LocalConversation(agent_on(server, native=native), workspace)
    conversation.send_message("Write hello.py that prints a greeting, and run it.")
    conversation.run()
    return conversation


def summary(events: list[Event], workspace: Path) -> list[tuple[Any, ...]]:
    """What the agent loop produced, without ids, times and the workspace's path."""
    out: list[tuple[Any, ...]] = []
    for event in events:
        if isinstance(event, ActionEvent):
            action = event.action.model_dump(mode="json") if event.action is not None else None
            thought = " ".join(part.text for part in event.thought)
            out.append(("action", event.tool_name, thought, action))
        elif isinstance(event, ObservationEvent):
            text = event.observation.text.replace(str(workspace), "<workspace>")
            out.append(("observation", event.tool_name, text))
        elif isinstance(event, AgentErrorEvent):
            out.append(("error", event.tool_name, event.error))
        elif isinstance(event, MessageEvent):
            out.append(("message", event.source, event.llm_message.text))
        else:
            out.append((type(event).__name__,))
    return out


def test_the_agent_creates_a_file_and_runs_it_with_tools_in_the_prompt(
    fake_model: FakeOpenAIServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "prompt"
    workspace.mkdir()
    fake_model.script("local-model", prompt_replies())

    conversation = run(fake_model, workspace, native=False)
    try:
        assert conversation.state.execution_status == ConversationExecutionStatus.FINISHED
        assert (workspace / "hello.py").read_text() == SCRIPT
        outputs = [
            e.observation.text for e in conversation.state.events if isinstance(e, ObservationEvent)
        ]
        assert any("hello from the prompt" in text for text in outputs)
    finally:
        conversation.close()

    bodies = fake_model.requests
    assert len(bodies) == 3
    assert all("tools" not in body for body in bodies)
    assert all(body["stop"] == ["</function"] for body in bodies)
    system = bodies[0]["messages"][0]["content"]
    assert "## terminal" in system and "## file_editor" in system and "## finish" in system
    # The third request shows the model its earlier calls and their results, as text.
    third = bodies[2]["messages"]
    assert [m["role"] for m in third[1:]] == ["user", "assistant", "user", "assistant", "user"]
    assert "<function=file_editor>\n<parameter=command>create</parameter>" in third[2]["content"]
    assert third[3]["content"].startswith("EXECUTION RESULT of [file_editor]:")
    assert third[4]["content"].endswith(
        "<function=terminal>\n<parameter=command>python3 hello.py</parameter>\n</function>"
    )
    assert "hello from the prompt" in third[5]["content"]


def test_prompt_calls_give_the_same_events_as_native_calls(
    fake_model: FakeOpenAIServer, tmp_path: Path
) -> None:
    runs = {}
    for native, replies in ((True, native_replies()), (False, prompt_replies())):
        workspace = tmp_path / ("native" if native else "prompt")
        workspace.mkdir()
        fake_model.reset()
        fake_model.script("local-model", replies)
        conversation = run(fake_model, workspace, native=native)
        try:
            runs[native] = summary(list(conversation.state.events), workspace)
        finally:
            conversation.close()

    assert runs[False] == runs[True]
    assert [entry[:2] for entry in runs[False] if entry[0] == "action"] == [
        ("action", "file_editor"),
        ("action", "terminal"),
        ("action", "finish"),
    ]


def test_a_malformed_call_is_an_error_the_agent_sees_and_corrects(
    fake_model: FakeOpenAIServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    fake_model.script(
        "local-model",
        [
            FakeReply.text(
                "<function=terminal>\n<parameter=cmd>echo fixed > out.txt</parameter>\n"
            ),
            FakeReply.text("<function=shell>\n<parameter=command>ls</parameter>\n"),
            FakeReply.text(
                "<function=terminal>\n<parameter=command>echo fixed > out.txt</parameter>\n"
            ),
            FakeReply.text("out.txt now says fixed."),
        ],
    )

    conversation = run(fake_model, workspace, native=False)
    try:
        errors = [e for e in conversation.state.events if isinstance(e, AgentErrorEvent)]
        assert conversation.state.execution_status == ConversationExecutionStatus.FINISHED
        assert (workspace / "out.txt").read_text().strip() == "fixed"
    finally:
        conversation.close()

    assert [e.tool_name for e in errors] == ["terminal", "shell"]
    assert "cmd" in errors[0].error
    assert "Unknown tool 'shell'" in errors[1].error
    # Each error went back to the model as the result of its call.
    second, third = fake_model.requests[1]["messages"], fake_model.requests[2]["messages"]
    assert second[-1]["content"].startswith("EXECUTION RESULT of [terminal]:")
    assert "cmd" in second[-1]["content"]
    assert third[-1]["content"].startswith("EXECUTION RESULT of [shell]:\nError: Unknown tool")


def test_a_goal_completes_on_a_model_without_tool_calling(
    fake_model: FakeOpenAIServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "goal"
    workspace.mkdir()
    fake_model.script("local-model", prompt_replies())
    verdict = {"score": 1.0, "complete": True, "missing": []}
    fake_model.script("judge", [FakeReply.text(json.dumps(verdict))])
    judge = LLM(
        model="openai/judge",
        base_url=fake_model.base_url,
        api_key=SecretStr("none"),
        native_tool_calling=False,
        num_retries=0,
    )
    conversation = LocalConversation(agent_on(fake_model, native=False), workspace)
    try:
        outcome = run_goal(
            conversation,
            "Write hello.py that prints a greeting, and run it.",
            judge,
            max_iterations=2,
            verify="python3 hello.py | grep -q 'hello from the prompt'",
        )
    finally:
        conversation.close()

    assert outcome.status == "complete"
    assert outcome.iterations == 1
    assert (workspace / "hello.py").read_text() == SCRIPT
    agent_bodies = fake_model.requests_for("local-model")
    assert len(agent_bodies) == 3
    assert all("tools" not in body for body in fake_model.requests)


def test_a_risk_stated_in_the_prompt_format_holds_the_call_for_approval_across_a_restart(
    fake_model: FakeOpenAIServer, tmp_path: Path
) -> None:
    workspace, persistence = tmp_path / "w", tmp_path / "conversations"
    workspace.mkdir()
    fake_model.script(
        "local-model",
        [
            FakeReply.text(terminal_text("echo low > low.txt", "LOW")),
            FakeReply.text(terminal_text("echo high > high.txt", "HIGH")),
            FakeReply.text("Both files are written."),
        ],
    )
    first = LocalConversation(
        agent_on(fake_model, native=False), workspace, persistence_dir=persistence
    )
    first.set_security_analyzer(LLMSecurityAnalyzer())
    first.set_confirmation_policy(ConfirmRisky(threshold=SecurityRisk.HIGH))
    first.send_message("Write low.txt, then high.txt.")
    first.run()
    try:
        assert first.state.execution_status == ConversationExecutionStatus.WAITING_FOR_CONFIRMATION
        [pending] = first.pending_actions
        assert (pending.tool_name, pending.security_risk) == ("terminal", "HIGH")
        assert (workspace / "low.txt").exists() and not (workspace / "high.txt").exists()
        conversation_id = first.id
    finally:
        first.close()
    # The tools section asked for the risk, as native schemas do under an LLM analyzer.
    assert (
        "  - security_risk (string; optional; one of: LOW, MEDIUM, HIGH)"
        in (fake_model.requests[0]["messages"][0]["content"])
    )

    again = LocalConversation(
        agent_on(fake_model, native=False),
        workspace,
        persistence_dir=persistence,
        conversation_id=conversation_id,
    )
    try:
        again.run()  # approves the waiting call, then asks the model again
        assert (workspace / "high.txt").read_text().strip() == "high"
        assert again.state.execution_status == ConversationExecutionStatus.FINISHED
    finally:
        again.close()
    last = fake_model.requests[-1]["messages"]
    assert "tools" not in fake_model.requests[-1]
    assert "<parameter=command>echo high > high.txt</parameter>" in last[-2]["content"]
    assert last[-1]["content"].startswith("EXECUTION RESULT of [terminal]:")
