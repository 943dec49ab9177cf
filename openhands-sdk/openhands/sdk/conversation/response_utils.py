"""`get_agent_final_response`: what the agent last answered, read from a conversation's events."""

from __future__ import annotations

from collections.abc import Sequence

from openhands.sdk.event import ActionEvent, MessageEvent
from openhands.sdk.event.base import Event
from openhands.sdk.llm.message import TextContent
from openhands.sdk.tool.builtins.finish import FinishAction, FinishTool

__all__ = ["get_agent_final_response"]


def get_agent_final_response(events: Sequence[Event]) -> str:
    """The agent's last answer: the message of its last `finish` call or its last text reply,
    whichever came later; "" when it has given neither."""
    for event in reversed(events):
        if isinstance(event, ActionEvent) and event.source == "agent":
            if event.tool_name == FinishTool.name:
                return event.action.message if isinstance(event.action, FinishAction) else ""
        elif isinstance(event, MessageEvent) and event.source == "agent":
            return "".join(
                part.text for part in event.llm_message.content if isinstance(part, TextContent)
            )
    return ""
