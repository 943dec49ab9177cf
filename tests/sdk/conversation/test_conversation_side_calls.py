"""LLM calls beside the run: `ask_agent`, `generate_title`, and streaming `token_callbacks`."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from openhands.sdk import Agent, ConversationExecutionStatus, LocalConversation, Message, Tool
from openhands.sdk.conversation import ConversationError
from openhands.sdk.llm import LLM, LLMResponse, TextContent

Status = ConversationExecutionStatus


class EchoLLM(LLM):
    """Answers every completion with what it was sent: the message count and the last text.

    Class-level, so copies made with `copy_for` (same class) answer the same way.
    """

    model: str = "test/echo"
    answers: ClassVar[dict[str, str]] = {}  # usage_id -> fixed answer, if any
    scripts: ClassVar[dict[str, list[Message]]] = {}  # usage_id -> replies to give first
    seen: ClassVar[list[tuple[str, list[Message], bool]]] = []

    def _complete(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, stream: bool
    ) -> LLMResponse:
        EchoLLM.seen.append((self.usage_id, list(messages), stream))
        script = EchoLLM.scripts.get(self.usage_id)
        if script:
            return LLMResponse(message=script.pop(0))
        text = EchoLLM.answers.get(self.usage_id)
        if text is None:
            text = f"{len(messages)} messages, last: {messages[-1].text}"
        reply = Message(role="assistant", content=[TextContent(text=text)] if text else [])
        return LLMResponse(message=reply, cost=0.5, prompt_tokens=10, completion_tokens=2)


class StreamingLLM(EchoLLM):
    """Also streams its answer word by word to `on_token` (what `LLM.completion` will take)."""

    def completion(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        *,
        stream: bool | None = None,
        on_token: Callable[[Any], None] | None = None,
    ) -> LLMResponse:
        response = super().completion(messages, tools, stream=stream)
        if on_token is not None:
            for word in response.message.text.split():
                on_token(word)
        return response


@pytest.fixture(autouse=True)
def _fresh_echo() -> None:
    EchoLLM.answers.clear()
    EchoLLM.scripts.clear()
    EchoLLM.seen.clear()


def _conversation(workspace_dir, llm: LLM, **kwargs: Any) -> LocalConversation:
    return LocalConversation(Agent(llm=llm, tools=[Tool(name="echo")]), workspace_dir, **kwargs)


def test_ask_agent_answers_from_the_current_context_without_recording_anything(
    workspace_dir,
) -> None:
    conversation = _conversation(workspace_dir, EchoLLM(usage_id="agent"))
    try:
        conversation.send_message("build the thing")
        conversation.run()
        events = list(conversation.state.events)
        status = conversation.state.execution_status

        answer = conversation.ask_agent("How is it going?")

        usage_id, sent, stream = EchoLLM.seen[-1]
        assert usage_id == "ask-agent-llm"
        assert stream is False
        assert [message.text for message in sent[:-1]] == [
            message.text for message in conversation.state.llm_messages()
        ]
        assert "How is it going?" in sent[-1].text
        assert answer == f"{len(sent)} messages, last: {sent[-1].text}"
        assert list(conversation.state.events) == events
        assert conversation.state.execution_status == status
    finally:
        conversation.close()


def test_ask_agent_counts_its_cost_under_its_own_usage_id(workspace_dir) -> None:
    conversation = _conversation(workspace_dir, EchoLLM(usage_id="agent"))
    try:
        conversation.ask_agent("anything?")

        stats = conversation.conversation_stats
        assert stats.get_metrics_for_usage("ask-agent-llm").accumulated_cost == 0.5
        assert stats.get_metrics_for_usage("agent").accumulated_cost == 0.0
    finally:
        conversation.close()


def test_ask_agent_works_while_a_run_is_going(workspace_dir, reply, gate) -> None:
    EchoLLM.scripts["agent"] = [reply.call("gated", {"label": "x"}), reply.text("done")]
    conversation = LocalConversation(
        Agent(llm=EchoLLM(usage_id="agent"), tools=[Tool(name="gated")]), workspace_dir
    )
    try:
        conversation.send_message("go")
        runner = threading.Thread(target=conversation.run)
        runner.start()
        assert gate.started.wait(10)

        answer = conversation.ask_agent("still busy?")

        gate.release.set()
        runner.join(10)
        assert "still busy?" in answer
        _, sent, _ = next(call for call in EchoLLM.seen if call[0] == "ask-agent-llm")
        assert sent[-2].role == "tool"  # the open tool call is answered, as providers require
        assert conversation.state.execution_status == Status.FINISHED
    finally:
        gate.release.set()
        conversation.close()


def test_an_answer_without_text_is_an_error(workspace_dir) -> None:
    EchoLLM.answers["ask-agent-llm"] = ""
    conversation = _conversation(workspace_dir, EchoLLM(usage_id="agent"))
    try:
        with pytest.raises(ConversationError, match="no text"):
            conversation.ask_agent("say nothing")
    finally:
        conversation.close()


def test_a_blank_question_is_refused(workspace_dir) -> None:
    conversation = _conversation(workspace_dir, EchoLLM(usage_id="agent"))
    try:
        with pytest.raises(ValueError, match="question"):
            conversation.ask_agent("  ")
    finally:
        conversation.close()


def test_generate_title_asks_an_llm_about_the_first_user_message(workspace_dir) -> None:
    EchoLLM.answers["title-generation"] = '"Fix the flaky login test"'
    conversation = _conversation(workspace_dir, EchoLLM(usage_id="agent"))
    try:
        conversation.send_message("The login test fails one run in ten; find out why.")

        title = conversation.generate_title()

        usage_id, sent, stream = EchoLLM.seen[-1]
        assert (usage_id, stream) == ("title-generation", False)
        assert "The login test fails one run in ten" in sent[-1].text
        assert title == "Fix the flaky login test"
    finally:
        conversation.close()


def test_generate_title_cuts_a_long_answer(workspace_dir) -> None:
    EchoLLM.answers["given"] = "A very long title " * 10
    conversation = _conversation(workspace_dir, EchoLLM(usage_id="agent"))
    try:
        conversation.send_message("hello")

        title = conversation.generate_title(llm=EchoLLM(usage_id="given"), max_length=20)

        assert len(title) == 20
        assert title.endswith("...")
    finally:
        conversation.close()


def test_generate_title_falls_back_to_the_message_when_the_llm_fails(workspace_dir) -> None:
    from openhands.sdk.testing import TestLLM

    failing = TestLLM.from_messages([RuntimeError("provider down")])
    conversation = _conversation(workspace_dir, EchoLLM(usage_id="agent"))
    try:
        conversation.send_message("Refactor the parser\nand more details")

        assert conversation.generate_title(llm=failing) == "Refactor the parser and more details"
    finally:
        conversation.close()


def test_generate_title_needs_a_user_message(workspace_dir) -> None:
    conversation = _conversation(workspace_dir, EchoLLM(usage_id="agent"))
    try:
        with pytest.raises(ValueError, match="no user message"):
            conversation.generate_title()
    finally:
        conversation.close()


def test_token_callbacks_get_the_streamed_chunks_of_the_agent(workspace_dir) -> None:
    first: list[Any] = []
    second: list[Any] = []
    EchoLLM.answers["agent"] = "all done here"
    conversation = _conversation(
        workspace_dir, StreamingLLM(usage_id="agent"), token_callbacks=[first.append, second.append]
    )
    try:
        conversation.send_message("go")
        conversation.run()

        assert first == ["all", "done", "here"]
        assert second == first
    finally:
        conversation.close()


def test_without_token_callbacks_the_llm_gets_no_on_token(workspace_dir) -> None:
    conversation = _conversation(workspace_dir, EchoLLM(usage_id="agent"))
    try:
        conversation.send_message("go")
        conversation.run()  # EchoLLM.completion takes no on_token: it would raise

        assert conversation.state.execution_status == Status.FINISHED
    finally:
        conversation.close()
