"""`Conversation(...)`: builds a local or a remote conversation from the workspace type."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.base import BaseConversation, as_conversation_id
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.workspace.local import LocalWorkspace
from openhands.sdk.workspace.remote.base import RemoteWorkspace


class Conversation:
    """Factory: a `RemoteWorkspace` gives a `RemoteConversation`, anything else a local one."""

    def __new__(  # type: ignore[misc]
        cls,
        agent: AgentBase | None,
        workspace: LocalWorkspace | RemoteWorkspace | str | Path | None = None,
        **kwargs: Any,
    ) -> BaseConversation:
        """`agent=None` reopens a persisted local conversation with its stored agent.

        A local conversation's workspace defaults to the stored one when reopening, else the
        current directory.
        """
        if kwargs.get("conversation_id") is not None:
            kwargs["conversation_id"] = as_conversation_id(kwargs["conversation_id"])
        if isinstance(workspace, RemoteWorkspace):
            from openhands.sdk.conversation.remote.conversation import RemoteConversation

            if agent is None:
                raise InvalidArgumentError(
                    "A remote conversation needs an agent to send to the server."
                )
            return RemoteConversation(agent, workspace, **kwargs)
        from openhands.sdk.conversation.local import LocalConversation

        return LocalConversation(agent, workspace, **kwargs)
