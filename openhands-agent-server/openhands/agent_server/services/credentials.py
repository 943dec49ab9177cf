"""`Credentials`: how the LLMs of a conversation get their keys, when created and when reopened.

Keys never reach disk in clear (`LLM.api_key` is dropped from every dump), so a conversation
reopened from disk has an agent without a key, and a goal resumed after a restart has no
judge. Every place the server hands an LLM to a conversation goes through this protocol:
creating a conversation, reopening one, starting a run, starting or resuming a goal with a
judge, deleting. `SealedCredentials` (sealed_credentials.py, the server's default) keeps what
a client sent sealed in the conversation's folder; `ServerDefaults` keeps nothing and gives
an LLM without a key the server's LLM_API_KEY (and LLM_BASE_URL).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.errors import ConflictError
from openhands.sdk.agent import AgentBase
from openhands.sdk.llm import LLM

logger = logging.getLogger(__name__)

SEALED_KEYS_UNREADABLE = "sealed_keys_unreadable"
"""The `detail` of a `SealedKeysError` answer."""


class SealedKeysError(ConflictError):
    """409: keys sealed for this conversation cannot be opened with the server's current key.

    The message says what to do: restore the key they were sealed with, or send the key again.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, code=SEALED_KEYS_UNREADABLE)


@dataclass(frozen=True)
class JudgeChoice:
    """The judge for a goal start or resume, and how to put back the judge kept before it.

    `llm` None means the default: the previous judge of a resumed goal, else a copy of the
    agent's LLM. `restore` (blocking) is called when the goal did not start after all.
    """

    llm: LLM | None
    restore: Callable[[], None] | None = None


class LLMDefaults(Protocol):
    """Fills in what an LLM sent without a key gets: `ServerConfig` (LLM_API_KEY), or the
    stored settings and profiles first (`services/stored_llms.py`)."""

    def fill_llm(self, llm: LLM) -> None:
        """Give `llm` a key (and base URL) where it has none; no I/O (runs on the loop)."""
        ...


class Credentials(Protocol):
    """Gives LLMs their keys; may keep (sealed) what a client sent, for after a restart.

    `new_conversation` and `check` run on the event loop (no I/O); the others may write or
    read the disk and run in a worker thread.
    """

    def new_conversation(self, conversation_id: uuid.UUID, agent: AgentBase) -> None:
        """A conversation is about to be created with `agent` (its keys as the client sent
        them): fill in defaults, and take what to keep. Nothing is written yet."""
        ...

    def created(self, conversation_id: uuid.UUID) -> None:
        """The conversation's folder exists now: write what `new_conversation` took.

        Called before the create is acknowledged; a `StorageError` undoes the create.
        """
        ...

    def reopened(self, conversation_id: uuid.UUID, agent: AgentBase) -> AgentBase:
        """A stored conversation is opened: `agent` (read from disk, keyless) with its keys.

        Never raises for keys that cannot be opened: the conversation still opens, and
        `check` (runs) and `judge` (goals) refuse with a `SealedKeysError` saying what to do.
        """
        ...

    def check(self, conversation_id: uuid.UUID) -> None:
        """Raise `SealedKeysError` if the agent cannot run: its kept keys cannot be opened."""
        ...

    def agent_changed(self, conversation_id: uuid.UUID, agent: AgentBase) -> Callable[[], None]:
        """The conversation's agent is about to become `agent` (a new LLM, its keys as the
        client sent them): keep its secrets instead of the old agent's and fill in defaults.

        Blocking. Returns what puts the previous secrets back, for when the change fails.
        """
        ...

    def judge(
        self, conversation_id: uuid.UUID, requested: LLM | None, *, resume: bool = False
    ) -> JudgeChoice:
        """The judge for a goal start, or for a resume (`resume=True`).

        A requested judge gets its keys and is kept as the goal's judge; on start, None
        means the default judge (nothing kept); on resume, None means the judge kept for the
        goal (after a restart, the one sealed when it started), if any. Raises
        `SealedKeysError` when the agent or the kept judge cannot get its keys.
        """
        ...

    def forget(self, conversation_id: uuid.UUID) -> None:
        """The conversation was deleted (or its create failed): drop what is held for it."""
        ...


class ServerDefaults:
    """Keys from the server's settings only: LLM_API_KEY (and LLM_BASE_URL) where none is set."""

    def __init__(self, config: ServerConfig, *, defaults: LLMDefaults | None = None) -> None:
        self._config: LLMDefaults = defaults or config

    def new_conversation(self, conversation_id: uuid.UUID, agent: AgentBase) -> None:
        """Fill the server's defaults into the new agent's LLM."""
        self._config.fill_llm(agent.llm)

    def created(self, conversation_id: uuid.UUID) -> None:
        """Nothing is kept, so nothing to write."""

    def reopened(self, conversation_id: uuid.UUID, agent: AgentBase) -> AgentBase:
        """Fill the server's defaults into the reopened agent's LLM."""
        self._config.fill_llm(agent.llm)
        return agent

    def check(self, conversation_id: uuid.UUID) -> None:
        """Nothing sealed, so nothing can be unreadable."""

    def agent_changed(self, conversation_id: uuid.UUID, agent: AgentBase) -> Callable[[], None]:
        """Fill the server's defaults into the new agent's LLM; nothing is kept."""
        self._config.fill_llm(agent.llm)
        return _nothing

    def judge(
        self, conversation_id: uuid.UUID, requested: LLM | None, *, resume: bool = False
    ) -> JudgeChoice:
        """The requested judge with the server's defaults; nothing is kept across restarts."""
        if requested is not None:
            self._config.fill_llm(requested)
        return JudgeChoice(requested)

    def forget(self, conversation_id: uuid.UUID) -> None:
        """Nothing is kept, so nothing to drop."""


def _nothing() -> None:
    """Nothing to put back."""


@asynccontextmanager
async def goal_judge(
    credentials: Credentials,
    controls: BlockingPool,
    conversation_id: uuid.UUID,
    requested: LLM | None,
    *,
    resume: bool = False,
) -> AsyncIterator[LLM | None]:
    """The judge to start (or resume) a goal with, kept before the goal starts.

    Use it around the start: if the start raises, the judge kept before this one is put
    back, so a refused start (409, a full disk) never changes which judge a later resume
    gets. Kept first, so a goal whose start was acknowledged always has its judge on disk.
    """
    choice = await controls.run_to_completion(
        credentials.judge, conversation_id, requested, resume=resume
    )
    try:
        yield choice.llm
    except Exception:
        if choice.restore is not None:
            try:
                await controls.run_to_completion(choice.restore)
            except Exception:
                logger.exception("conversation %s: putting back its judge failed", conversation_id)
        raise
