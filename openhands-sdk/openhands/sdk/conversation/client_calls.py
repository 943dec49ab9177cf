"""Client tool calls on a `LocalConversation`: which wait for the client, and the answer.

A mixin so the conversation module keeps to the run loop; the tools themselves are in
`openhands.sdk.tool.client_tool`. A call of a client tool with `wait_for_result` is recorded
without a result and ends the run (`paused`); it waits as long as the log has no result for
it (so the wait survives a reopen), and `respond_to_client_tool` records the client's answer.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.event.action import ActionEvent, ObservationEvent
from openhands.sdk.llm.message import ImageContent, TextContent

if TYPE_CHECKING:
    from openhands.sdk.conversation.state import ConversationState
    from openhands.sdk.event.base import Event
    from openhands.sdk.tool.tool import ToolDefinition


class ClientCalls:
    """The client-tool part of `LocalConversation` (see the module docstring)."""

    # Provided by LocalConversation.
    _state: ConversationState
    _lock: threading.RLock
    tools: dict[str, ToolDefinition]

    def _emit(self, event: Event) -> Event:
        raise NotImplementedError

    def _check_open(self) -> None:
        raise NotImplementedError

    def run(self) -> None:
        raise NotImplementedError

    _awaiting_client = False

    def wait_for_client(self) -> None:
        """End the run after this step: a client tool call waits for its answer."""
        self._awaiting_client = True

    @property
    def pending_client_calls(self) -> list[ActionEvent]:
        """The calls of client tools that wait for the client's answer (see
        `openhands.sdk.tool.client_tool`), oldest first."""
        if not any(getattr(tool, "wait_for_result", False) for tool in self.tools.values()):
            return []
        from openhands.sdk.conversation.confirmation import unmatched_actions

        with self._lock:
            return [
                action
                for action in unmatched_actions(self._state.active_branch())
                if getattr(self.tools.get(action.tool_name), "wait_for_result", False)
            ]

    def respond_to_client_tool(
        self,
        tool_call_id: str,
        result: str | Sequence[TextContent | ImageContent],
        *,
        is_error: bool = False,
        run: bool = False,
    ) -> None:
        """Answer a waiting client tool call: `result` becomes its observation.

        With `run=True` the run goes on at once (in this thread); else the next `run()`
        does. Raises ValueError when no call of that id waits for the client.
        """
        self._check_open()
        from openhands.sdk.tool.client_tool import ClientToolObservation

        with self._lock:
            waiting = {a.tool_call_id: a for a in self.pending_client_calls}
            action = waiting.get(tool_call_id)
            if action is None:
                known = ", ".join(sorted(waiting)) or "none"
                raise InvalidArgumentError(
                    f"No client tool call {tool_call_id!r} waits for an answer (waiting: {known})"
                )
            content: list[TextContent | ImageContent] = (
                [TextContent(text=result)] if isinstance(result, str) else list(result)
            )
            self._emit(
                ObservationEvent(
                    tool_name=action.tool_name,
                    tool_call_id=action.tool_call_id,
                    action_id=action.id,
                    observation=ClientToolObservation(content=content, is_error=is_error),
                )
            )
        if run:
            self.run()
