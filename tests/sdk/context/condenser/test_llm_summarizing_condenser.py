"""LLMSummarizingCondenser in a real conversation: the view stays short, tool calls keep their
results, the log keeps everything, a reopen rebuilds the same view, and a goal's judge still
reads the whole transcript."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openhands.sdk import Agent, LocalConversation, Tool
from openhands.sdk.context.condenser import LLMSummarizingCondenser, NoOpCondenser
from openhands.sdk.conversation.goal import run_goal
from openhands.sdk.event import Condensation
from openhands.sdk.event.condenser import SUMMARY_PREFIX
from openhands.sdk.llm.message import Message, TextContent
from openhands.sdk.testing import TestLLM
from pydantic import ValidationError


def _summarizer(*summaries: str) -> TestLLM:
    return TestLLM.from_messages(
        [Message(role="assistant", content=[TextContent(text=s)]) for s in summaries],
        usage_id="condenser",
    )


def _agent(replies: list[Message], condenser: LLMSummarizingCondenser | None) -> Agent:
    llm = TestLLM.from_messages(replies, usage_id="agent")
    return Agent(llm=llm, tools=[Tool(name="echo")], condenser=condenser)


def _echoes(reply, count: int) -> list[Message]:
    return [reply.call("echo", {"text": f"step {n}"}, call_id=f"c{n}") for n in range(count)]


def _valid_pairs(messages: list[Message]) -> bool:
    """Every tool message answers a call of an assistant message before it."""
    open_calls: set[str] = set()
    for message in messages:
        for call in message.tool_calls or []:
            open_calls.add(call.id)
        if message.role == "tool" and message.tool_call_id not in open_calls:
            return False
    return True


def test_the_view_is_condensed_and_the_log_keeps_everything(
    workspace_dir: Path, persistence_dir: Path, reply
) -> None:
    summaries = [f"S{n}: echoed up to step {n}" for n in range(12)]
    condenser = LLMSummarizingCondenser(llm=_summarizer(*summaries), max_size=10, keep_first=1)
    agent = _agent([*_echoes(reply, 12), reply.text("done")], condenser)
    conversation = LocalConversation(agent, workspace_dir, persistence_dir=persistence_dir)
    conversation.send_message("echo twelve times")
    conversation.run()

    calls = agent.llm.calls  # type: ignore[attr-defined]
    assert max(len(messages) for messages in calls) <= 11
    assert all(_valid_pairs(messages) for messages in calls)
    last_view = calls[-1]
    assert last_view[1].text == "echo twelve times"  # keep_first: the task stays
    condensations = [e for e in conversation.state.events if isinstance(e, Condensation)]
    assert len(condensations) >= 2
    in_view = [m for m in last_view if m.text.startswith(SUMMARY_PREFIX)]
    assert len(in_view) == 1 and condensations[-1].summary in in_view[0].text
    assert len([e for e in conversation.state.events if e.kind == "ObservationEvent"]) == 12
    assert "condenser" in conversation.conversation_stats.usage_to_metrics
    view = conversation.state.llm_messages()
    cid = conversation.id
    conversation.close()

    again = LocalConversation(
        _agent([], None), workspace_dir, persistence_dir=persistence_dir, conversation_id=cid
    )
    try:
        assert again.state.llm_messages() == view
    finally:
        again.close()


def test_a_short_conversation_is_not_condensed(make_conversation, reply) -> None:
    summarizer = _summarizer()
    conversation, _ = make_conversation([reply.text("hi")])
    conversation.close()
    condenser = LLMSummarizingCondenser(llm=summarizer, max_size=50, keep_first=2)
    assert condenser.condense([Message(role="user", content=[])] * 50) is None
    assert summarizer.calls == []


def test_a_failing_summary_leaves_the_view_whole(workspace_dir: Path, reply) -> None:
    broken = TestLLM.from_messages([RuntimeError("provider down")], usage_id="condenser")
    condenser = LLMSummarizingCondenser(llm=broken, max_size=6, keep_first=1)
    agent = _agent([*_echoes(reply, 5), reply.text("done")], condenser)
    conversation = LocalConversation(agent, workspace_dir)
    conversation.send_message("go")
    conversation.run()
    assert conversation.state.execution_status.value == "finished"
    assert not any(isinstance(e, Condensation) for e in conversation.state.events)
    conversation.close()


def test_keep_first_must_leave_room_to_condense() -> None:
    with pytest.raises(ValidationError, match="keep_first"):
        LLMSummarizingCondenser(llm=_summarizer(), max_size=10, keep_first=5)


def test_a_goal_on_a_condensed_history_completes_and_its_judge_reads_everything(
    workspace_dir: Path, reply
) -> None:
    condenser = LLMSummarizingCondenser(llm=_summarizer("S: steps 0-3"), max_size=8, keep_first=1)
    agent = _agent([*_echoes(reply, 6), reply.text("done")], condenser)
    conversation = LocalConversation(agent, workspace_dir)
    verdict = json.dumps({"score": 1.0, "complete": True, "missing": ""})
    judge = TestLLM.from_messages(
        [Message(role="assistant", content=[TextContent(text=verdict)])], usage_id="judge"
    )

    outcome = run_goal(conversation, "echo six times", judge)

    assert outcome.status == "complete"
    assert any(isinstance(e, Condensation) for e in conversation.state.events)
    judge_prompt = "\n".join(m.text for m in judge.calls[0])
    assert "step 0" in judge_prompt and "step 5" in judge_prompt  # not condensed for the judge
    conversation.close()


def test_agents_carry_their_condenser_through_json() -> None:
    agent = Agent(
        llm=TestLLM.from_messages([]),
        condenser=LLMSummarizingCondenser(llm=_summarizer(), max_size=40, keep_first=3),
    )
    again = Agent.model_validate_json(agent.model_dump_json())
    assert isinstance(again.condenser, LLMSummarizingCondenser)
    assert (again.condenser.max_size, again.condenser.keep_first) == (40, 3)
    assert isinstance(
        Agent.model_validate(
            {"llm": {"model": "x"}, "condenser": {"kind": "NoOpCondenser"}}
        ).condenser,
        NoOpCondenser,
    )


def test_condense_on_request_summarizes_now_and_the_next_step_sees_it(
    workspace_dir: Path, persistence_dir: Path, reply
) -> None:
    condenser = LLMSummarizingCondenser(llm=_summarizer("THE SUMMARY"), max_size=40, keep_first=1)
    replies = [reply.text(f"answer {n}") for n in range(4)]
    agent = Agent(
        llm=TestLLM.from_messages(replies, usage_id="agent"), tools=[], condenser=condenser
    )
    conversation = LocalConversation(agent, workspace_dir, persistence_dir=persistence_dir)
    try:
        for n in range(3):
            conversation.send_message(f"question {n}")
            conversation.run()
        conversation.condense()
        conversation.send_message("last question")
        conversation.run()
        [condensation] = [e for e in conversation.state.events if isinstance(e, Condensation)]
        last_view = agent.llm.calls[-1]  # type: ignore[attr-defined]
        usage = conversation.conversation_stats.usage_to_metrics
    finally:
        conversation.close()

    assert condensation.summary == "THE SUMMARY"
    assert any("THE SUMMARY" in m.text for m in last_view)
    assert "answer 0" not in [m.text for m in last_view]  # summarized away
    assert "condenser" in usage


@pytest.mark.parametrize("condenser", [None, NoOpCondenser()])
def test_condense_without_a_condenser_that_condenses_on_request_says_what_to_give(
    workspace_dir: Path, reply, condenser: NoOpCondenser | None
) -> None:
    from openhands.sdk.conversation import CondenserUnavailableError

    agent = Agent(llm=TestLLM.from_messages([], usage_id="agent"), tools=[], condenser=condenser)
    conversation = LocalConversation(agent, workspace_dir)
    try:
        with pytest.raises(CondenserUnavailableError, match="LLMSummarizingCondenser"):
            conversation.condense()
        assert not any(isinstance(e, Condensation) for e in conversation.state.events)
    finally:
        conversation.close()
