"""`Credentials`: how the LLMs of a conversation get their keys, when created and when reopened.

Keys never reach disk in clear (`LLM.api_key` is dropped from every dump), so a conversation
reopened from disk has an agent without a key, and a goal resumed after a restart has no
judge. Every place the server hands an LLM to a conversation goes through this protocol:
creating a conversation, reopening one, starting or resuming a goal with a judge, deleting.
`ServerDefaults`, the default, gives an LLM without a key the server's LLM_API_KEY (and
LLM_BASE_URL); a store that seals the keys a client sent, so that they survive a restart,
implements the same protocol and is passed to `create_app`.
"""

from __future__ import annotations

import uuid
from typing import Protocol

from openhands.agent_server.config import ServerConfig
from openhands.sdk.agent import AgentBase
from openhands.sdk.llm import LLM


class Credentials(Protocol):
    """Gives LLMs their keys; may keep (sealed) what a client sent for later."""

    def new_conversation(self, conversation_id: uuid.UUID, agent: AgentBase) -> None:
        """A conversation is being created with `agent` (its keys as the client sent them)."""
        ...

    def reopened(self, conversation_id: uuid.UUID, agent: AgentBase) -> None:
        """A stored conversation is opened: give `agent` (read from disk, no key) its keys."""
        ...

    def judge(self, conversation_id: uuid.UUID, requested: LLM | None) -> LLM | None:
        """The judge for a goal start or resume: `requested` with its keys, or a kept one.

        None means the default: the previous judge of a resumed goal, else a copy of the
        agent's LLM.
        """
        ...

    def forget(self, conversation_id: uuid.UUID) -> None:
        """The conversation was deleted: drop whatever was kept for it."""
        ...


class ServerDefaults:
    """Keys from the server's settings only: LLM_API_KEY (and LLM_BASE_URL) where none is set."""

    def __init__(self, config: ServerConfig) -> None:
        self._config = config

    def new_conversation(self, conversation_id: uuid.UUID, agent: AgentBase) -> None:
        """Fill the server's defaults into the new agent's LLM."""
        self._config.fill_llm(agent.llm)

    def reopened(self, conversation_id: uuid.UUID, agent: AgentBase) -> None:
        """Fill the server's defaults into the reopened agent's LLM."""
        self._config.fill_llm(agent.llm)

    def judge(self, conversation_id: uuid.UUID, requested: LLM | None) -> LLM | None:
        """The requested judge with the server's defaults; nothing is kept across restarts."""
        if requested is not None:
            self._config.fill_llm(requested)
        return requested

    def forget(self, conversation_id: uuid.UUID) -> None:
        """Nothing is kept, so nothing to drop."""
