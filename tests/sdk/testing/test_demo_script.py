"""The demo script of `openhands-fake-llm`: who is asking, the agent's steps, the judge's verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk import LLM, Agent, Conversation, Tool
from openhands.sdk.conversation.goal import GoalStatus, run_goal
from openhands.sdk.conversation.goal.models import VerifyResult
from openhands.sdk.conversation.goal.prompts import JUDGE_SYSTEM_PROMPT, judge_messages
from openhands.sdk.llm.message import text_message
from openhands.sdk.testing import DemoScript, FakeOpenAIServer, FakeReply
from openhands.sdk.testing.demo_script import (
    DEMO_FILE,
    DEMO_SOURCE,
    DEMO_TEST,
    DEMO_TEST_SOURCE,
    JUDGE_PROMPT_START,
    NOT_THE_AGENT,
)
from pydantic import SecretStr

TOOLS = ["terminal", "file_editor", "finish"]


def _tools(names: list[str]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": name, "parameters": {}}} for name in names]


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


def _agent_body(*history: dict[str, Any], tools: list[str] = TOOLS) -> dict[str, Any]:
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "greet the world"},
        *history,
    ]
    return {"model": "fake", "messages": messages, "tools": _tools(tools)}


def _judge_body(
    transcript: str, verify: VerifyResult | None = None, model: str = "fake"
) -> dict[str, Any]:
    messages = [m.to_chat_dict() for m in judge_messages("greet the world", transcript, verify)]
    return {"model": model, "messages": messages}


def _only_call(reply: FakeReply) -> tuple[str, dict[str, Any]]:
    assert len(reply.calls) == 1
    name, arguments = reply.calls[0]
    return name, json.loads(arguments)


CREATED = _call("file_editor", command="create", path=DEMO_FILE, file_text=DEMO_SOURCE)
RAN = _call("terminal", command=f"python3 {DEMO_FILE}")
FOLLOWUP = {"role": "user", "content": "The goal is not complete yet (round 1 of 5, score 0.67)."}


def test_the_judge_prompt_marker_is_the_sdk_judge_prompt() -> None:
    assert JUDGE_SYSTEM_PROMPT.startswith(JUDGE_PROMPT_START)


def test_the_agent_first_creates_the_demo_file_with_file_editor() -> None:
    name, arguments = _only_call(DemoScript()(_agent_body()))

    assert name == "file_editor"
    assert arguments == {"command": "create", "path": DEMO_FILE, "file_text": DEMO_SOURCE}


def test_the_agent_runs_the_file_once_it_was_created() -> None:
    name, arguments = _only_call(DemoScript()(_agent_body(CREATED)))

    assert (name, arguments) == ("terminal", {"command": f"python3 {DEMO_FILE}"})


def test_the_agent_finishes_round_one_after_its_two_steps() -> None:
    name, arguments = _only_call(DemoScript()(_agent_body(CREATED, RAN)))

    assert name == "finish"
    assert DEMO_FILE in arguments["message"]


def test_after_a_followup_the_agent_writes_and_runs_the_test() -> None:
    script = DemoScript()
    first = _only_call(script(_agent_body(CREATED, RAN, FOLLOWUP)))
    made = _call("file_editor", **first[1])
    second = _only_call(script(_agent_body(CREATED, RAN, FOLLOWUP, made)))

    assert first == (
        "file_editor",
        {"command": "create", "path": DEMO_TEST, "file_text": DEMO_TEST_SOURCE},
    )
    assert second == ("terminal", {"command": f"python3 {DEMO_TEST}"})


def test_without_finish_the_agent_ends_its_round_with_text() -> None:
    reply = DemoScript()(_agent_body(CREATED, RAN, tools=["terminal", "file_editor"]))

    assert reply.calls == ()
    assert reply.content and DEMO_FILE in reply.content


def test_without_file_editor_the_terminal_writes_the_same_file(tmp_path: Path) -> None:
    name, arguments = _only_call(DemoScript()(_agent_body(tools=["terminal", "finish"])))
    assert name == "terminal"

    subprocess.run(["bash", "-c", arguments["command"]], cwd=tmp_path, check=True, timeout=30)

    assert (tmp_path / DEMO_FILE).read_text() == DEMO_SOURCE


def test_the_demo_sources_print_what_the_judge_looks_for(tmp_path: Path) -> None:
    (tmp_path / DEMO_FILE).write_text(DEMO_SOURCE)
    (tmp_path / DEMO_TEST).write_text(DEMO_TEST_SOURCE)

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, *args], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run(DEMO_FILE) == "Hello, world!\n"
    assert run(DEMO_TEST) == "checks passed: 1\n"
    assert "1 passed" in run("-m", "pytest", "-q", "-p", "no:cacheprovider", DEMO_TEST)


def test_a_request_with_the_judge_prompt_gets_a_verdict() -> None:
    reply = DemoScript()(_judge_body("user: greet the world"))

    verdict = json.loads(reply.content or "")
    assert verdict["complete"] is False
    assert verdict["score"] == 0
    assert [req["satisfied"] for req in verdict["requirements"]] == [False, False, False]


def test_a_model_named_judge_is_the_judge_whatever_its_prompt() -> None:
    body = {
        "model": "fake-judge",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": _tools(TOOLS),
    }

    reply = DemoScript()(body)

    assert reply.calls == ()
    assert "requirements" in json.loads(reply.content or "")


def test_round_one_evidence_is_not_complete_and_names_the_missing_test() -> None:
    transcript = f"assistant: [tool call] file_editor {DEMO_SOURCE}\ntool (terminal): Hello, world!"

    verdict = json.loads(DemoScript()(_judge_body(transcript)).content or "")

    assert verdict["complete"] is False
    assert verdict["score"] == 0.67
    assert verdict["missing"] == "a test of greet() exists and passes"


def test_the_test_output_completes_the_goal() -> None:
    transcript = (
        f"assistant: [tool call] file_editor {DEMO_SOURCE}\ntool (terminal): Hello, world!\n"
        "tool (terminal): checks passed: 1"
    )

    verdict = json.loads(DemoScript()(_judge_body(transcript)).content or "")

    assert verdict == {**verdict, "complete": True, "score": 1.0, "missing": ""}


def test_a_test_written_but_never_run_proves_nothing() -> None:
    transcript = (
        f"assistant: [tool call] file_editor {DEMO_SOURCE}\ntool (terminal): Hello, world!\n"
        f"assistant: [tool call] file_editor {DEMO_TEST_SOURCE}"
    )

    verdict = json.loads(DemoScript()(_judge_body(transcript)).content or "")

    assert verdict["complete"] is False


def test_a_failing_verify_command_keeps_the_goal_open() -> None:
    transcript = f"{DEMO_SOURCE}\nHello, world!\nchecks passed: 1"
    failed = VerifyResult(command="pytest -q", exit_code=1, output_tail="1 failed")

    verdict = json.loads(DemoScript()(_judge_body(transcript, failed)).content or "")

    assert verdict["complete"] is False
    assert verdict["missing"] == "the verification command passes"


def test_a_passing_verify_command_is_a_proven_requirement() -> None:
    transcript = f"{DEMO_SOURCE}\nHello, world!\nchecks passed: 1"
    passed = VerifyResult(command="pytest -q", exit_code=0)

    verdict = json.loads(DemoScript()(_judge_body(transcript, passed)).content or "")

    assert verdict["complete"] is True
    assert len(verdict["requirements"]) == 4


def test_a_request_without_tools_gets_a_plain_answer() -> None:
    reply = DemoScript()({"model": "fake", "messages": [{"role": "user", "content": "a title?"}]})

    assert reply.content == NOT_THE_AGENT


def test_answers_report_token_usage_and_repeat_exactly() -> None:
    body = _agent_body(CREATED)

    first, second = DemoScript()(body), DemoScript()(body)

    assert first == second
    assert first.prompt_tokens > 0 and first.completion_tokens > 0


def test_a_delay_is_applied_to_every_answer() -> None:
    assert DemoScript(delay=0.25)(_agent_body()).delay == 0.25


def test_a_negative_delay_is_refused() -> None:
    with pytest.raises(ValueError, match="delay must be >= 0"):
        DemoScript(delay=-1)


@pytest.mark.slow
def test_a_goal_against_the_demo_script_completes_in_round_two(tmp_path: Path) -> None:
    statuses: list[GoalStatus] = []
    with FakeOpenAIServer() as server:
        server.set_responder("*", DemoScript())
        llm = LLM(model="openai/fake", base_url=server.base_url, api_key=SecretStr("fake"))
        agent = Agent(llm=llm, tools=[Tool(name="terminal"), Tool(name="file_editor")])
        conversation = Conversation(agent, workspace=tmp_path)
        try:
            outcome = run_goal(
                conversation,
                "greet the world, with a test",
                llm.copy_for("goal-judge"),
                max_iterations=4,
                verify=f"python3 {DEMO_TEST}",
                on_status=statuses.append,
            )
        finally:
            conversation.close()

    assert (outcome.status, outcome.iterations) == ("complete", 2)
    rounds = {s.last_round.iteration: s.last_round for s in statuses if s.last_round}
    assert (rounds[1].complete, rounds[1].verify_exit_code) == (False, 2)
    assert (rounds[2].complete, rounds[2].verify_exit_code) == (True, 0)
    assert (tmp_path / DEMO_TEST).read_text() == DEMO_TEST_SOURCE


def test_the_demo_reports_a_price_for_every_answer() -> None:
    with FakeOpenAIServer() as server:
        server.set_responder("*", DemoScript())
        llm = LLM(model="openai/fake", base_url=server.base_url, api_key=SecretStr("fake"))
        reply = llm.completion([text_message("user", "What is this conversation about?")])

    assert reply.cost > 0  # `openai/fake` has no price of its own: the demo reports one
    assert llm.metrics.accumulated_cost == pytest.approx(reply.cost)
