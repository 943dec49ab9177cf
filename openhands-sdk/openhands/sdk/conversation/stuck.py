"""A simple stuck detector: the agent repeating itself without progress."""

from __future__ import annotations

from collections.abc import Sequence

from openhands.sdk.event.action import ActionEvent, AgentErrorEvent, ObservationEvent
from openhands.sdk.event.base import Event
from openhands.sdk.event.message import MessageEvent

REPEATS = 4
WINDOW = REPEATS * 3


def is_stuck(recent_events: Sequence[Event]) -> bool:
    """True when the last REPEATS tool calls and their results are all identical.

    Pass the newest events (WINDOW of them is enough); older ones are ignored, and so is
    everything before the last user message (new guidance is a fresh start).
    """
    pairs: list[tuple[str, str, str]] = []
    pending: dict[str, ActionEvent] = {}
    for event in recent_events[-WINDOW:]:
        if isinstance(event, MessageEvent) and event.source == "user":
            pairs.clear()
            pending.clear()
        elif isinstance(event, ActionEvent):
            pending[event.tool_call_id] = event
        elif isinstance(event, ObservationEvent | AgentErrorEvent):
            action = pending.pop(event.tool_call_id, None)
            if action is None:
                continue
            result = event.text if isinstance(event, ObservationEvent) else event.error
            pairs.append((action.tool_name, action.tool_call.arguments, result))
    if len(pairs) < REPEATS:
        return False
    last = pairs[-REPEATS:]
    return all(pair == last[0] for pair in last)
