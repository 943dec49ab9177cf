"""`TurnWatch`: follows one gateway request's run or goal, turning events into progress notes.

It reads the conversation's log from where the request's turn began (the pub/sub cursor, so
nothing is missed or seen twice) and yields `Note`s as the agent works (its messages and
tool calls, each goal phase and verdict), `Waiting` ticks while nothing happens (so a stream
can keep its connection alive), and one `Answer` at the end: when the run the request
started has ended, or when its goal is no longer active. The agent keeps working if the
client goes away; the conversation can be read or continued later by its id.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from openhands.agent_server.errors import ServerError
from openhands.agent_server.goals.host import RunResult
from openhands.agent_server.services.live import LiveConversation
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.conversation.goal import GoalStatus, goal_status_from
from openhands.sdk.conversation.goal.status import GOAL_STATE_KEY
from openhands.sdk.conversation.response_utils import get_agent_final_response
from openhands.sdk.event import (
    ActionEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    Event,
    MessageEvent,
)

Status = ConversationExecutionStatus

NOTE_CHARS = 2000
"""Longest text of one progress note (longer agent messages are cut with an ellipsis)."""


class GatewayTimeoutError(ServerError):
    """504: the run or goal did not end within OH_GATEWAY_WAIT_SECONDS (it goes on)."""

    status_code = 504


class AgentFailedError(ServerError):
    """502: the agent's run (or the goal) ended in an error; the message says which."""

    status_code = 502


@dataclass(frozen=True)
class Note:
    """A line of progress: what the agent or the goal just did."""

    text: str


@dataclass(frozen=True)
class Waiting:
    """Nothing happened for a keep-alive interval."""


@dataclass(frozen=True)
class Answer:
    """The end of the turn: the agent's answer and how it ended."""

    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    goal: GoalStatus | None = None


Update = Note | Waiting | Answer


def token_counts(live: LiveConversation) -> tuple[int, int]:
    """Prompt and completion tokens every LLM of the conversation has used so far."""
    metrics = list(live.conversation.state.metrics.values())
    return sum(m.prompt_tokens for m in metrics), sum(m.completion_tokens for m in metrics)


class TurnWatch:
    """One request's turn: a run (`run` given) or a goal, from log index `start` on."""

    def __init__(
        self,
        live: LiveConversation,
        start: int,
        *,
        run: concurrent.futures.Future[RunResult] | None,
        keepalive: float,
        wait_seconds: float,
    ) -> None:
        self.live = live
        self.cursor = start
        self._run = run
        self._keepalive = keepalive
        self._deadline = time.monotonic() + wait_seconds if wait_seconds else None
        self._tokens = token_counts(live)
        self._answer = ""
        self._goal: GoalStatus | None = None
        self._goal_seen = False

    @property
    def conversation_id(self) -> str:
        """The conversation this turn runs in."""
        return str(self.live.id)

    async def updates(self) -> AsyncIterator[Update]:
        """Notes as the turn goes, then its `Answer`; raises a `ServerError` if it fails."""
        subscription = self.live.pubsub.subscribe(self.cursor)
        batches = subscription.batches()
        run_done = asyncio.shield(asyncio.wrap_future(self._run)) if self._run is not None else None
        pending: asyncio.Future[list[Event]] | None = None
        try:
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(anext(batches))
                waits: set[asyncio.Future[object]] = {pending}  # type: ignore[arg-type]
                if run_done is not None:
                    waits.add(run_done)  # type: ignore[arg-type]
                done, _ = await asyncio.wait(
                    waits, timeout=self._timeout(), return_when=asyncio.FIRST_COMPLETED
                )
                if pending in done:
                    batch = pending.result()
                    pending = None
                    for event in batch:
                        for note in self._take(event):
                            yield note
                    if self._goal_seen and self._goal is not None and not self._goal.active:
                        yield self._finish_goal(self._goal)
                        return
                if run_done is not None and run_done.done():
                    # Everything the run appended is in the log before its thread returns.
                    log = self.live.events
                    for event in log.read(self.cursor, len(log)):
                        for note in self._take(event):
                            yield note
                    yield self._finish_run(run_done.result())
                    return
                if not done:
                    if self._deadline is not None and time.monotonic() >= self._deadline:
                        raise GatewayTimeoutError(
                            f"The agent did not finish within OH_GATEWAY_WAIT_SECONDS; it goes "
                            f"on in conversation {self.live.id} (GET /api/conversations/"
                            f"{self.live.id}, or send X-OpenHands-ServerConversation-ID)."
                        )
                    yield Waiting()
        finally:
            subscription.close()
            if pending is not None and not pending.done():
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending

    def _timeout(self) -> float:
        if self._deadline is None:
            return self._keepalive
        return max(0.0, min(self._keepalive, self._deadline - time.monotonic()))

    # -- events -> notes --------------------------------------------------------------------

    def _take(self, event: Event) -> list[Note]:
        """Notes for one event of the log (and what it says about the answer or the goal)."""
        self.cursor += 1
        if isinstance(event, MessageEvent) and event.source == "agent":
            self._answer = get_agent_final_response([event])
            return [Note(_cut(self._answer))] if self._answer else []
        if isinstance(event, ActionEvent) and event.source == "agent":
            final = get_agent_final_response([event])
            if final:
                self._answer = final
            return [Note(f"{event.tool_name}: {_cut(_arguments(event), 300)}")]
        if isinstance(event, ConversationErrorEvent):
            return [Note(f"error: {event.code}: {_cut(event.detail, 500)}")]
        if isinstance(event, ConversationStateUpdateEvent) and event.key == GOAL_STATE_KEY:
            status = goal_status_from(event, self.live.events)
            note = _goal_note(self._goal, status)
            self._goal, self._goal_seen = status, True
            return [Note(note)] if note else []
        return []

    # -- the end ----------------------------------------------------------------------------

    def _usage(self) -> tuple[int, int]:
        prompt, completion = token_counts(self.live)
        return prompt - self._tokens[0], completion - self._tokens[1]

    def _finish_run(self, result: RunResult) -> Answer:
        status = result.status
        cid = self.live.id
        if status in (Status.ERROR, Status.STUCK):
            raise AgentFailedError(
                f"The agent's run ended {status.value}: {result.error or 'see its events'} "
                f"(conversation {cid})."
            )
        if status == Status.WAITING_FOR_CONFIRMATION:
            raise AgentFailedError(
                f"The agent waits for approval of its tool calls in conversation {cid}: "
                "approve or reject them (POST .../events/respond_to_confirmation), then ask again."
            )
        prompt, completion = self._usage()
        reason = "stop" if status == Status.FINISHED else "length"
        return Answer(self._answer, reason, prompt, completion)

    def _finish_goal(self, goal: GoalStatus) -> Answer:
        if goal.status == "interrupted":
            why = goal.error or goal.reason or "interrupted"
            raise AgentFailedError(
                f"The goal was interrupted ({why}) in conversation {self.live.id}; resume it "
                "with POST /api/conversations/{id}/goal/resume, or ask again."
            )
        prompt, completion = self._usage()
        reason = "stop" if goal.status == "complete" else "length"
        return Answer(self._answer, reason, prompt, completion, goal)


def _goal_note(before: GoalStatus | None, status: GoalStatus) -> str | None:
    """A line for a goal status that differs from the one `before` it (None: nothing new)."""
    if not status.active:
        why = f": {status.reason}" if status.reason else ""
        return f"Goal {status.status} after {status.iteration} round(s){why}"
    if before is None or not before.active:
        verify = f"; verify: {status.verify_command}" if status.verify_command else ""
        return (
            f"Goal: {_cut(status.objective, 300)} (at most {status.max_iterations} rounds{verify})"
        )
    if status.iteration > before.iteration and status.verdict is not None:
        parts = [f"Round {status.iteration}:"]
        if status.verify is not None:
            parts.append(f"verify exited {status.verify.exit_code};")
        parts.append(f"judge {status.verdict.score:.0%}")
        if status.verdict.missing:
            parts.append(f"- missing: {_cut(status.verdict.missing, 500)}")
        return " ".join(parts)
    if status.phase != before.phase and status.phase == "verifying":
        return f"Round {status.iteration + 1}: running verify"
    if status.phase != before.phase and status.phase == "judging":
        return f"Round {status.iteration + 1}: asking the judge"
    return None


def _arguments(event: ActionEvent) -> str:
    try:
        arguments = json.loads(event.tool_call.arguments)
    except (ValueError, TypeError):
        return event.tool_call.arguments
    if isinstance(arguments, dict):
        for key in ("command", "path", "message", "thought", "prompt"):
            if isinstance(arguments.get(key), str):
                return arguments[key]
    return event.tool_call.arguments


def _cut(text: str, limit: int = NOTE_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
