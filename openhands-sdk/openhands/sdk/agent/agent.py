"""`Agent`: an LLM plus tools. One `step` asks the LLM once and runs the tool calls it makes.

A step: (1) the LLM message list, (2) one completion, (3) a reply without tool calls ends the
run; otherwise every call is recorded as an ActionEvent, (4) each call is checked
(PreToolUse hooks may reject it), (5) the calls run, one after another or up to
`tool_concurrency_limit` at once, and (6) their results are recorded in call order, each
followed by its PostToolUse hooks. Between (3) and (4) the conversation's confirmation policy
may stop the run to wait for approval; the next step after `run()` approves starts at (4)
with the calls that waited.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from openhands.sdk.agent.base import AgentBase, OnEvent, OnToken
from openhands.sdk.event.action import (
    ActionEvent,
    AgentErrorEvent,
    ObservationEvent,
    UserRejectObservation,
)
from openhands.sdk.event.message import MessageEvent
from openhands.sdk.hooks.config import HookEventType
from openhands.sdk.llm.llm import LLMResponse
from openhands.sdk.llm.message import Message, MessageToolCall, TextContent
from openhands.sdk.tool.builtins import FinishTool
from openhands.sdk.tool.tool import Observation, ToolDefinition
from pydantic import PrivateAttr, ValidationError

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from openhands.sdk.agent.parallel_executor import ParallelToolExecutor
    from openhands.sdk.agent.step_conversation import StepConversation

__all__ = ["Agent", "AgentBase", "OnEvent", "OnToken"]


class _Call:
    """One tool call of a reply: its recorded event, its validated action, or why not."""

    # A plain class: a dataclass costs ~1 ms of import time each.
    __slots__ = ("action", "error", "event", "rejection")

    def __init__(self, event: ActionEvent, action: Any, error: str | None = None) -> None:
        self.event = event
        self.action = action
        self.error = error
        self.rejection: str | None = None


class _Ran:
    """How running one call ended: an observation, or the error the agent is shown."""

    __slots__ = ("error", "observation")

    def __init__(self, observation: Observation | None = None, error: str | None = None) -> None:
        self.observation = observation
        self.error = error


class Agent(AgentBase):
    """The standard agent: ask the LLM, run its tool calls, finish on `finish` or plain text."""

    _executor: ParallelToolExecutor | None = PrivateAttr(default=None)

    def step(
        self, conversation: StepConversation, on_event: OnEvent, on_token: OnToken | None = None
    ) -> bool:
        approved = conversation.take_approved_actions()
        if approved:
            return self._run_calls(
                conversation, self._approved_calls(conversation, approved), on_event
            )
        messages = self._llm_messages(conversation)
        response = self._complete(conversation, messages, on_token)
        reply = response.message
        if not reply.tool_calls:
            on_event(MessageEvent(source="agent", llm_message=reply))
            return True
        calls = self._record_calls(conversation, response, on_event)
        if conversation.needs_approval([call.event for call in calls if call.error is None]):
            conversation.wait_for_approval()
            return False
        return self._run_calls(conversation, calls, on_event)

    def _approved_calls(
        self, conversation: StepConversation, actions: list[ActionEvent]
    ) -> list[_Call]:
        """The calls that waited for approval, as the step that recorded them left them."""
        calls: list[_Call] = []
        for event in actions:
            if event.action is None:
                _, error, _, _ = self._validate(event.tool_call, conversation.tools)
                calls.append(_Call(event, None, error or "the call's arguments were lost"))
            else:
                calls.append(_Call(event, event.action))
        return calls

    # -- (1) and (2): ask the LLM --------------------------------------------------------------

    def _llm_messages(self, conversation: StepConversation) -> list[Message]:
        """The messages the LLM sees this step (kept incrementally by the state), condensed
        first when the condenser says the view grew too long."""
        messages = conversation.state.llm_messages()
        if self.condenser is None:
            return messages
        for llm in self.condenser.llms:
            conversation.conversation_stats.register_llm(llm)  # type: ignore[arg-type]
        condensation = self.condenser.condense(messages)
        if condensation is None:
            return messages
        conversation.append_event(condensation)
        return conversation.state.llm_messages()

    def _complete(
        self, conversation: StepConversation, messages: list[Message], on_token: OnToken | None
    ) -> LLMResponse:
        # `on_token` only when there are token callbacks, so LLMs without it keep working.
        streaming: dict[str, Any] = {} if on_token is None else {"on_token": on_token}
        return self.llm.completion(messages, tools=conversation.tool_schemas, **streaming)

    # -- (3): record the calls -----------------------------------------------------------------

    def _record_calls(
        self, conversation: StepConversation, response: LLMResponse, on_event: OnEvent
    ) -> list[_Call]:
        reply = response.message
        thought = [part for part in reply.content if isinstance(part, TextContent)]
        # Ties this reply's calls together so the history can merge them into one message.
        response_id = response.id or uuid.uuid4().hex
        calls: list[_Call] = []
        for index, tool_call in enumerate(_up_to_finish(reply.tool_calls or [])):
            action, error, stated_risk, summary = self._validate(tool_call, conversation.tools)
            first = index == 0  # the reply's text and reasoning go with its first call
            event = ActionEvent(
                thought=thought if first else [],
                reasoning_content=reply.reasoning_content if first else None,
                thinking_blocks=list(reply.thinking_blocks) if first else [],
                responses_reasoning_item=reply.responses_reasoning_item if first else None,
                tool_name=tool_call.name,
                tool_call_id=tool_call.id,
                tool_call=tool_call,
                action=action,
                llm_response_id=response_id,
                security_risk=stated_risk,
                summary=summary,
            )
            if error is None:
                event = conversation.rated(event)
            on_event(event)
            calls.append(_Call(event, action, error))
        return calls

    @staticmethod
    def _validate(
        call: MessageToolCall, tools: Mapping[str, ToolDefinition]
    ) -> tuple[Any, str | None, str, str | None]:
        """(the action or None, why not, the `security_risk` the LLM stated or UNKNOWN, the
        `summary` it gave or None)."""
        tool = tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(tools))
            return None, f"Unknown tool {call.name!r}. Available tools: {known}.", "UNKNOWN", None
        risk = "UNKNOWN"
        summary: str | None = None
        try:
            arguments = json.loads(call.arguments or "{}")
            if not isinstance(arguments, dict):
                raise ValueError("arguments must be a JSON object")
            # Asked of every tool while an LLM analyzer is set; not the tool's own argument.
            stated = arguments.pop("security_risk", None)
            if isinstance(stated, str) and stated.upper() in ("LOW", "MEDIUM", "HIGH"):
                risk = stated.upper()
            # Asked of every tool too; a tool with a `summary` argument of its own keeps it.
            given = (
                arguments.get("summary")
                if tool.declares_summary()
                else arguments.pop("summary", None)
            )
            if isinstance(given, str) and given.strip():
                summary = given.strip()
            return tool.action_from_arguments(arguments), None, risk, summary
        except (ValueError, ValidationError) as exc:
            return None, f"Invalid arguments for tool {call.name!r}: {exc}", risk, summary

    # -- (4) to (6): check, run, record --------------------------------------------------------

    def _run_calls(
        self, conversation: StepConversation, calls: list[_Call], on_event: OnEvent
    ) -> bool:
        """Run the calls of one reply; True when one of them was `finish`."""
        runnable = [call for call in calls if call.error is None]
        if self.tool_concurrency_limit == 1 or len(runnable) <= 1:
            # One at a time: each call is checked right before it runs, so a PreToolUse hook
            # sees what the calls before it did.
            finished = False
            for call in calls:
                if call.error is None:
                    call.rejection = self._check(conversation, call)
                if self._for_client(conversation, call):
                    continue
                ran = None if not self._will_run(call) else self._invoke(conversation, call)
                finished = self._record_result(conversation, call, ran, on_event) or finished
            return finished
        from openhands.sdk.agent.parallel_executor import lock_keys  # only for parallel calls

        for call in runnable:
            call.rejection = self._check(conversation, call)
        calls = [call for call in calls if not self._for_client(conversation, call)]
        allowed = [call for call in calls if self._will_run(call)]
        results = self._parallel().execute_batch(
            allowed,
            lambda call: self._invoke(conversation, call),
            lambda call: lock_keys(conversation.tools[call.event.tool_name], call.action),
        )
        ran_by_id = {call.event.id: ran for call, ran in zip(allowed, results, strict=True)}
        finished = False
        for call in calls:  # in the reply's order, whatever order they ended in
            ran = ran_by_id.get(call.event.id)
            finished = self._record_result(conversation, call, ran, on_event) or finished
        return finished

    @staticmethod
    def _for_client(conversation: StepConversation, call: _Call) -> bool:
        """True for an allowed call of a client tool that waits for its answer: it is left
        without a result and the run stops after this step (see `tool.client_tool`)."""
        if not Agent._will_run(call):
            return False
        tool = conversation.tools[call.event.tool_name]
        if not getattr(tool, "wait_for_result", False):
            return False
        conversation.wait_for_client()
        return True

    @staticmethod
    def _will_run(call: _Call) -> bool:
        return call.error is None and call.rejection is None

    def _parallel(self) -> ParallelToolExecutor:
        from openhands.sdk.agent.parallel_executor import ParallelToolExecutor

        if self._executor is None or self._executor.max_workers != self.tool_concurrency_limit:
            self._executor = ParallelToolExecutor(self.tool_concurrency_limit)
        return self._executor

    def _check(self, conversation: StepConversation, call: _Call) -> str | None:
        """Why the call must not run (PreToolUse hooks said so), or None."""
        event = call.event
        outcome = conversation.hook_runner.run(
            HookEventType.PRE_TOOL_USE,
            {"tool_name": event.tool_name, "tool_input": _tool_input(event)},
            tool_name=event.tool_name,
            action_id=event.id,
        )
        return outcome.feedback if outcome.blocked else None

    def _invoke(self, conversation: StepConversation, call: _Call) -> _Ran:
        """Run one call's tool (maybe in a worker thread); never raises for a broken tool."""
        name = call.event.tool_name
        try:
            observation = conversation.tools[name](call.action, conversation)
            if not isinstance(observation, Observation):
                raise TypeError(f"it returned {type(observation).__name__}, not an Observation")
        except Exception as exc:  # a broken tool must not kill the run; the agent sees why
            return _Ran(error=f"Tool {name!r} failed: {type(exc).__name__}: {exc}")
        return _Ran(observation=observation)

    def _record_result(
        self, conversation: StepConversation, call: _Call, ran: _Ran | None, on_event: OnEvent
    ) -> bool:
        """Record the answer to one call (and run its PostToolUse hooks); True for `finish`."""
        event = call.event
        if call.rejection is not None:
            on_event(
                UserRejectObservation(
                    source="hook",
                    tool_name=event.tool_name,
                    tool_call_id=event.tool_call_id,
                    action_id=event.id,
                    rejection_reason=call.rejection,
                )
            )
            return False
        error = call.error if call.error is not None else (ran.error if ran else "not run")
        if error is not None or ran is None or ran.observation is None:
            on_event(
                AgentErrorEvent(
                    tool_name=event.tool_name, tool_call_id=event.tool_call_id, error=error or ""
                )
            )
            return False
        observation = ran.observation
        on_event(
            ObservationEvent(
                tool_name=event.tool_name,
                tool_call_id=event.tool_call_id,
                action_id=event.id,
                observation=observation,
            )
        )
        conversation.hook_runner.run(
            HookEventType.POST_TOOL_USE,
            {
                "tool_name": event.tool_name,
                "tool_input": _tool_input(event),
                "tool_response": observation.text,
            },
            tool_name=event.tool_name,
            action_id=event.id,
        )
        return isinstance(conversation.tools[event.tool_name], FinishTool)


def _tool_input(event: ActionEvent) -> dict[str, Any]:
    """A call's validated arguments as JSON for hooks ({} when they were invalid)."""
    action: Any = event.action
    if action is None:
        return {}
    if isinstance(action, dict):  # the JSON of the action already
        return action
    return action.model_dump(mode="json")  # a typed Action


def _up_to_finish(tool_calls: list[MessageToolCall]) -> list[MessageToolCall]:
    """The calls of a reply up to its first `finish`: the run ends there, so a call after it
    would never be answered (the reference drops them too)."""
    for index, call in enumerate(tool_calls):
        if call.name == FinishTool.name:
            if index + 1 < len(tool_calls):
                logger.info(
                    "Dropped %d tool call(s) after finish: %s",
                    len(tool_calls) - index - 1,
                    ", ".join(c.name for c in tool_calls[index + 1 :]),
                )
            return tool_calls[: index + 1]
    return tool_calls
