"""`ClientCalls`: client tool calls on a `LocalConversation`: which wait, and the answer.

A collaborator the conversation owns (see `conversation.core`); the tools themselves are in
`openhands.sdk.tool.client_tool`. A call of a client tool with `wait_for_result` is recorded
without a result and ends the run `paused` (the agent asks the run loop to end after its
step); it waits as long as the log has no result for it, so the wait survives a reopen, and
`respond` records the client's answer. Nothing is kept here but the host: the log says what
waits.
"""

from __future__ import annotations

from collections.abc import Sequence

from openhands.sdk.conversation.core import ConversationCore, require_open
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.event.action import ActionEvent, ObservationEvent
from openhands.sdk.llm.message import ImageContent, TextContent

__all__ = ["ClientCalls"]


class ClientCalls:
    """The calls of client tools that wait for the client (see the module docstring)."""

    def __init__(self, core: ConversationCore) -> None:
        self._core = core

    @property
    def pending(self) -> list[ActionEvent]:
        """The calls of client tools that wait for the client's answer, oldest first."""
        tools = self._core.tools
        if not any(getattr(tool, "wait_for_result", False) for tool in tools.values()):
            return []
        from openhands.sdk.conversation.confirmation import unmatched_actions

        state = self._core.state
        with state.lock:
            return [
                action
                for action in unmatched_actions(state.active_branch())
                if getattr(tools.get(action.tool_name), "wait_for_result", False)
            ]

    def respond(
        self,
        tool_call_id: str,
        result: str | Sequence[TextContent | ImageContent],
        *,
        is_error: bool = False,
    ) -> None:
        """Record the client's answer to a waiting call: `result` becomes its observation.

        Raises `InvalidArgumentError` (a ValueError) when no call of that id waits.
        """
        from openhands.sdk.tool.client_tool import ClientToolObservation

        require_open(self._core)
        with self._core.state.lock:
            waiting = {a.tool_call_id: a for a in self.pending}
            action = waiting.get(tool_call_id)
            if action is None:
                known = ", ".join(sorted(waiting)) or "none"
                raise InvalidArgumentError(
                    f"No client tool call {tool_call_id!r} waits for an answer (waiting: {known})"
                )
            content: list[TextContent | ImageContent] = (
                [TextContent(text=result)] if isinstance(result, str) else list(result)
            )
            self._core.emit(
                ObservationEvent(
                    tool_name=action.tool_name,
                    tool_call_id=action.tool_call_id,
                    action_id=action.id,
                    observation=ClientToolObservation(content=content, is_error=is_error),
                )
            )
