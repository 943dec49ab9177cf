"""`StuckDetector`: notices an agent repeating itself without progress.

It reads the newest events of the active branch after the last user message (new guidance
is a fresh start) and looks for four patterns, each with a threshold in
`StuckDetectionThresholds`:

- the same tool call with the same result, `action_observation` times in a row;
- the same tool call failing with the same error, more than `action_error` times in a row;
- a monologue: `monologue` agent messages with no tool call and no user message between them
  (feedback from hooks, such as a denied Stop, does not count as input: a Stop hook that
  always denies ends the run `stuck` instead of looping up to the step cap);
- two tool calls alternating with the same two results, `alternating_pattern` calls long.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openhands.sdk.conversation.types import StuckDetectionThresholds
from openhands.sdk.event.action import (
    ActionEvent,
    AgentErrorEvent,
    ObservationEvent,
    UserRejectObservation,
)
from openhands.sdk.event.base import Event, LLMConvertibleEvent
from openhands.sdk.event.message import MessageEvent

if TYPE_CHECKING:
    from openhands.sdk.conversation.state import ConversationState

__all__ = ["MAX_EVENTS_TO_SCAN", "REPEATS", "StuckDetector", "stuck_reason"]

MAX_EVENTS_TO_SCAN = 20
"""How many of the newest events of the active branch the detector reads."""

REPEATS = 4
"""The default number of identical calls with identical results that is stuck (the default
of `StuckDetectionThresholds.action_observation`)."""

_Call = tuple[str, str]  # tool name, raw arguments
_Result = tuple[bool, str]  # is an error, the text the LLM saw


class StuckDetector:
    """Tells whether a conversation's agent is stuck in a loop (see the module docstring)."""

    def __init__(
        self, state: ConversationState, thresholds: StuckDetectionThresholds | None = None
    ) -> None:
        self.state = state
        self.thresholds = thresholds or StuckDetectionThresholds()

    def is_stuck(self) -> bool:
        """True when the newest events show one of the stuck patterns."""
        return self.check() is not None

    def check(self) -> str | None:
        """What the agent is stuck doing (a sentence fragment), or None if it is not."""
        return stuck_reason(self.state.active_branch(limit=MAX_EVENTS_TO_SCAN), self.thresholds)


def stuck_reason(
    recent_events: list[Event], thresholds: StuckDetectionThresholds | None = None
) -> str | None:
    """The stuck pattern the newest of `recent_events` (oldest first) show, or None."""
    limits = thresholds or StuckDetectionThresholds()
    events = _since_last_user_message(recent_events)
    pairs = _call_results(events)
    streak = _same_pair_streak(pairs)
    if streak and not pairs[-1][1][0] and streak >= limits.action_observation:
        return f"repeated the same action with the same result {streak} times"
    if streak and pairs[-1][1][0] and streak > limits.action_error:
        return f"repeated the same failing action {streak} times"
    messages = _monologue_length(events)
    if messages >= limits.monologue:
        return f"sent {messages} messages in a row without acting or hearing from the user"
    if _alternates(pairs, limits.alternating_pattern):
        return f"alternated between two actions {limits.alternating_pattern} times"
    return None


def _since_last_user_message(events: list[Event]) -> list[Event]:
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if isinstance(event, MessageEvent) and event.source == "user":
            return events[index + 1 :]
    return events


def _call_results(events: list[Event]) -> list[tuple[_Call, _Result]]:
    """Each tool call that got a result, with that result, in order."""
    calls: dict[str, _Call] = {}
    pairs: list[tuple[_Call, _Result]] = []
    for event in events:
        if isinstance(event, ActionEvent):
            calls[event.tool_call_id] = (event.tool_name, event.tool_call.arguments)
        elif isinstance(event, ObservationEvent | AgentErrorEvent | UserRejectObservation):
            call = calls.pop(event.tool_call_id, None)
            if call is not None:
                is_error = isinstance(event, AgentErrorEvent)
                pairs.append((call, (is_error, _text(event))))
    return pairs


def _text(event: ObservationEvent | AgentErrorEvent | UserRejectObservation) -> str:
    """What the LLM read as the call's result (cheap: no message is built)."""
    if isinstance(event, ObservationEvent):
        return event.text
    if isinstance(event, AgentErrorEvent):
        return event.error
    return event.rejection_reason


def _same_pair_streak(pairs: list[tuple[_Call, _Result]]) -> int:
    if not pairs:
        return 0
    last = pairs[-1]
    streak = 0
    for pair in reversed(pairs):
        if pair != last:
            break
        streak += 1
    return streak


def _monologue_length(events: list[Event]) -> int:
    """Agent messages at the end with no tool call or user message between them."""
    count = 0
    for event in reversed(events):
        if isinstance(event, MessageEvent):
            if event.source == "agent":
                count += 1
            elif event.source == "user":
                break
            # hook or environment feedback (a denied Stop): not input from the user
        elif isinstance(event, LLMConvertibleEvent):
            break  # a tool call or its result: the agent is acting
    return count


def _alternates(pairs: list[tuple[_Call, _Result]], length: int) -> bool:
    if length < 3 or len(pairs) < length:
        return False
    last = pairs[-length:]
    if last[-1] == last[-2]:
        return False  # one repeated pair, not two alternating ones
    return all(last[index] == last[index + 2] for index in range(length - 2))
