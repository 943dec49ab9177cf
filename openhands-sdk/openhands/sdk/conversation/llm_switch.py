"""`LLMSwitching`: switching a `LocalConversation`'s model mid-conversation, by object or profile.

A collaborator the conversation owns (see `conversation.core`). The new LLM drives every step
from the next one on (the history is kept: the new model reads the same conversation), its
usage is counted under its own `usage_id` (a profile's is `profile:<name>`), and the switch
is saved with the conversation's configuration, so a reopened conversation keeps the model
it last switched to (without its key unless the caller gives one again). A tool may switch
during a run (`SwitchLLMTool`): the swap happens between steps' LLM calls, never during one.

Profiles come from `profile_store` (a `ProfileSource`): the user's `~/.openhands/profiles`
unless the conversation's host sets another (the agent server sets its own sealed store), so
a tool asking for a profile (`get_or_create_profile_llm`, e.g. `ask_oracle`) never needs to
know where it runs.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openhands.sdk.contracts import ProfileSource
    from openhands.sdk.conversation.core import ConversationCore
    from openhands.sdk.llm.llm import LLM

__all__ = ["PROFILE_USAGE_PREFIX", "LLMSwitching"]

logger = logging.getLogger(__name__)

PROFILE_USAGE_PREFIX = "profile:"
"""The usage_id of an LLM loaded from profile `name` is `profile:<name>`."""


class LLMSwitching:
    """Replaces the agent's LLM of a conversation (see the module docstring)."""

    def __init__(self, core: ConversationCore) -> None:
        self._core = core
        self.profile_store: ProfileSource | None = None
        """Where profiles are loaded (None: the user's `~/.openhands/profiles`)."""
        self._profile_llms: dict[str, LLM] = {}
        self._profile_lock = threading.Lock()

    def switch_llm(self, llm: LLM) -> None:
        """Drive the agent with `llm` from the next LLM call on (see the module docstring)."""
        state = self._core.state
        with state.lock:
            previous = state.agent.llm
            state.agent = state.agent.model_copy(update={"llm": llm})
            state.stats.register_llm(llm)
            self._core.save_config()
        logger.info(
            "conversation %s: model %s -> %s (usage_id %s)",
            state.id,
            previous.model,
            llm.model,
            llm.usage_id,
        )

    def switch_profile(self, profile_name: str) -> None:
        """Switch to the LLM saved as profile `profile_name` (`LLMProfileStore`).

        Raises FileNotFoundError (naming the profiles there are) or ValueError for a profile
        that is not a valid LLM.
        """
        llm = self._store().load(profile_name)
        self.switch_llm(llm.model_copy(update={"usage_id": PROFILE_USAGE_PREFIX + profile_name}))

    def get_or_create_profile_llm(self, profile_name: str, usage_id: str) -> LLM:
        """The LLM of profile `profile_name` under `usage_id`, for one-off calls beside the
        agent's (the agent keeps its model). Loaded once per `usage_id` and counted in the
        conversation's stats under it; errors as `switch_profile`'s."""
        with self._profile_lock:
            llm = self._profile_llms.get(usage_id)
            if llm is None:
                llm = self._store().load(profile_name).copy_for(usage_id)
                self._core.state.stats.register_llm(llm)
                self._profile_llms[usage_id] = llm
            return llm

    def _store(self) -> ProfileSource:
        if self.profile_store is not None:
            return self.profile_store
        from openhands.sdk.llm.llm_profile_store import LLMProfileStore

        return LLMProfileStore()
