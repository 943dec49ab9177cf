"""`Conversation(...)` and `Workspace(...)`: local or remote, chosen from the arguments.

They stand above both kinds, so nothing under them needs to know that a remote kind exists;
`openhands.sdk.conversation` and `openhands.sdk.workspace` hand them on (on first read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.base import BaseConversation, as_conversation_id
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.remote.workspace import RemoteWorkspace
from openhands.sdk.workspace.local import LocalWorkspace


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
            from openhands.sdk.remote.conversation import RemoteConversation

            if agent is None:
                raise InvalidArgumentError(
                    "A remote conversation needs an agent to send to the server; pass agent=."
                )
            return RemoteConversation(agent, workspace, **kwargs)
        from openhands.sdk.conversation.local import LocalConversation

        return LocalConversation(agent, workspace, **kwargs)


class Workspace:
    """Factory, as in the reference SDK: `Workspace(host=URL, ...)` is a `RemoteWorkspace` on
    that agent server; `Workspace(working_dir=...)` a `LocalWorkspace`."""

    def __new__(  # type: ignore[misc]
        cls, *, host: str | None = None, working_dir: str | Path = ".", **kwargs: Any
    ) -> LocalWorkspace | RemoteWorkspace:
        if host is not None:
            return RemoteWorkspace(host=host, working_dir=str(working_dir), **kwargs)
        return LocalWorkspace(working_dir=Path(working_dir), **kwargs)
