"""`DelegationVisualizer`: prints a conversation's events as panels titled with who speaks.

Made for conversations whose agent hands work to sub-agents: each panel names the agent
("Delegator Agent Action", "Lodging Expert Agent Observation"), messages name sender and
recipient ("Delegator Agent Message to Lodging Expert Agent"), and `create_sub_visualizer`
gives every sub-agent a visualizer of its own with the same settings and console.
rich is imported on the first event, so building one (or importing this module) is cheap.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from openhands.sdk.conversation.visualizer import ConversationVisualizerBase
from openhands.sdk.event import (
    ActionEvent,
    AgentErrorEvent,
    ConversationErrorEvent,
    Event,
    MessageEvent,
    ObservationEvent,
    PauseEvent,
    SystemPromptEvent,
    UserRejectObservation,
)
from openhands.sdk.utils.truncate import truncate_middle

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

__all__ = ["DelegationVisualizer"]

SYSTEM_PROMPT_CHARS = 1_000
"""How much of a system prompt a panel shows (prompts are long and the same every time)."""

_COLORS = {
    "system": "magenta",
    "action": "cyan",
    "observation": "yellow",
    "error": "red",
    "user": "gold3",
    "agent": "blue",
    "other": "magenta",
}


class DelegationVisualizer(ConversationVisualizerBase):
    """Shows events with the agent's name; sub-agents get their own named visualizers.

    `name`: the agent's name in titles (snake_case and CamelCase are shown as Title Case;
    None: "Agent"). `highlight_regex`: {regex: rich style} applied to every panel's text.
    `skip_user_messages`: leave out messages whose source is the user. `console`: where to
    print (default: a rich Console on stdout).
    """

    def __init__(
        self,
        name: str | None = None,
        highlight_regex: dict[str, str] | None = None,
        skip_user_messages: bool = False,
        *,
        console: Console | None = None,
    ) -> None:
        super().__init__()
        self._name = name
        self._highlight_patterns: dict[str, str] = dict(highlight_regex or {})
        self._skip_user_messages = skip_user_messages
        self._console = console

    @property
    def name(self) -> str | None:
        """The agent name this visualizer shows (None: shown as "Agent")."""
        return self._name

    def create_sub_visualizer(self, agent_id: str) -> DelegationVisualizer:
        """A visualizer for the sub-agent `agent_id`, with this one's settings and console."""
        return DelegationVisualizer(
            name=agent_id,
            highlight_regex=self._highlight_patterns,
            skip_user_messages=self._skip_user_messages,
            console=self._console,
        )

    def on_event(self, event: Event) -> None:
        """Print `event` as a titled panel (events with nothing to show are skipped)."""
        block = self.describe(event)
        if block is None:
            return
        title, body, color = block
        from rich.panel import Panel

        console = self._console
        if console is None:
            from rich.console import Console

            console = self._console = Console()
        console.print(
            Panel(self._styled(body), title=title, title_align="left", border_style=color)
        )

    # -- what a panel says --------------------------------------------------------------------

    def describe(self, event: Event) -> tuple[str, str, str] | None:
        """`(title, text, color)` of the panel for `event`, or None to show nothing."""
        agent = f"{self.format_agent_name(self._name) if self._name else 'Agent'} Agent"
        if isinstance(event, MessageEvent):
            return self._message(event, agent)
        if isinstance(event, SystemPromptEvent):
            tools = [tool.get("function", {}).get("name", "?") for tool in event.tools]
            text = truncate_middle(event.system_prompt.text, SYSTEM_PROMPT_CHARS)
            if tools:
                text += f"\n\nTools: {', '.join(tools)}"
            return f"{agent} System Prompt", text, _COLORS["system"]
        if isinstance(event, ActionEvent):
            thought = "\n".join(part.text for part in event.thought)
            call = f"{event.tool_name}({_arguments(event)})"
            text = f"{thought}\n\n{call}" if thought.strip() else call
            suffix = "" if event.action is not None else " (Not Executed)"
            return f"{agent} Action{suffix}", text, _COLORS["action"]
        if isinstance(event, ObservationEvent):
            color = _COLORS["error"] if event.is_error else _COLORS["observation"]
            return f"{agent} Observation", event.text, color
        if isinstance(event, AgentErrorEvent):
            return f"{agent} Error", event.error, _COLORS["error"]
        if isinstance(event, UserRejectObservation):
            return f"{agent} Action Rejected", event.rejection_reason, _COLORS["error"]
        if isinstance(event, ConversationErrorEvent):
            return f"{agent} Conversation Error", f"{event.code}: {event.detail}", _COLORS["error"]
        if isinstance(event, PauseEvent):
            return f"{agent} Paused", "The user paused the conversation.", _COLORS["other"]
        return None

    def _message(self, event: MessageEvent, agent: str) -> tuple[str, str, str] | None:
        text = event.llm_message.text
        if not text.strip():
            return None
        if event.source == "user":
            if self._skip_user_messages:
                return None
            sender = _sender(event)
            if sender:
                return (
                    f"{self.format_agent_name(sender)} Agent Message to {agent}",
                    text,
                    _COLORS["user"],
                )
            return f"User Message to {agent}", text, _COLORS["user"]
        if event.source in ("environment", "hook"):
            return f"Message from {event.source.title()} to {agent}", text, _COLORS["other"]
        recipient = self._last_sender()
        if recipient:
            title = f"{agent} Message to {self.format_agent_name(recipient)} Agent"
        else:
            title = f"Message from {agent} to User"
        return title, text, _COLORS["agent"]

    def _last_sender(self) -> str | None:
        """Who sent the latest user message (another agent, when this one is a sub-agent)."""
        state = self._state
        events = getattr(state, "events", None)
        if events is None:
            return None
        for event in reversed(list(events)):
            if isinstance(event, MessageEvent) and event.source == "user":
                return _sender(event)
        return None

    def _styled(self, body: str) -> Text:
        from rich.text import Text

        text = Text(body)
        for pattern, style in self._highlight_patterns.items():
            text.highlight_regex(pattern, style=style)
        return text

    @staticmethod
    def format_agent_name(name: str) -> str:
        """`lodging_expert` -> "Lodging Expert", `MainAgent` -> "Main Agent"; spaced names stay."""
        if " " in name:
            return name
        if "_" in name or "-" in name:
            return re.sub(r"[_-]+", " ", name).strip().title()
        return re.sub(r"(?<!^)(?=[A-Z])", " ", name).title()


def _sender(event: MessageEvent) -> str | None:
    # The reference's MessageEvent names the agent that sent a delegated message; ours may not.
    sender: Any = getattr(event, "sender", None)
    return sender if isinstance(sender, str) and sender else None


def _arguments(event: ActionEvent) -> str:
    if event.action is not None:
        return ", ".join(
            f"{key}={json.dumps(value)}"
            for key, value in event.action.model_dump(mode="json", exclude_none=True).items()
        )
    return event.tool_call.arguments or ""
