"""`RemoteState`: a read-only view of a server conversation's state for `RemoteConversation`."""

from __future__ import annotations

import uuid

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.llm.metrics import Metrics
from openhands.sdk.remote.client import RemoteClient
from openhands.sdk.remote.events import RemoteEventCache
from openhands.sdk.wire import ConversationInfo


class RemoteState:
    """What `conversation.state` gives for a remote conversation.

    `events` is the local mirror kept in sync over the WebSocket (no request per read);
    `execution_status`, `title` and `metrics` are read fresh from the server on each access.
    """

    def __init__(
        self,
        conversation_id: uuid.UUID,
        agent: AgentBase,
        client: RemoteClient,
        events: RemoteEventCache,
    ) -> None:
        """Bind the view to one conversation."""
        self._id = conversation_id
        self._agent = agent
        self._client = client
        self._events = events

    @property
    def id(self) -> uuid.UUID:
        """The conversation id."""
        return self._id

    @property
    def agent(self) -> AgentBase:
        """The agent this client was created with (the server redacts its key in answers)."""
        return self._agent

    def use_agent(self, agent: AgentBase) -> None:
        """Show `agent` from now on (the server switched its LLM)."""
        self._agent = agent

    @property
    def events(self) -> RemoteEventCache:
        """The conversation's events, oldest first, mirrored from the server."""
        return self._events

    def info(self) -> ConversationInfo:
        """The server's ConversationInfo (one REST read)."""
        return self._client.get_conversation(self._id)

    @property
    def execution_status(self) -> ConversationExecutionStatus:
        """The server's current execution status (one REST read)."""
        return self.info().execution_status

    @property
    def title(self) -> str | None:
        """The conversation title (the first user message line), read from the server."""
        return self.info().title

    @property
    def metrics(self) -> dict[str, Metrics]:
        """Cost and token usage per LLM usage_id, read from the server."""
        return self.info().metrics

    @property
    def stats(self) -> ConversationStats:
        """`metrics` as a `ConversationStats` (a snapshot read from the server)."""
        return ConversationStats(usage_to_metrics=self.metrics)
