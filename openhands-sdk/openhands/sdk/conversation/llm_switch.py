"""Switching a `LocalConversation`'s model mid-conversation, by object or by saved profile.

A mixin so the conversation module keeps to the run loop. The new LLM drives every step
from the next one on (the history is kept: the new model reads the same conversation), its
usage is counted under its own `usage_id` (a profile's is `profile:<name>`), and the switch
is saved with the conversation's configuration, so a reopened conversation keeps the model
it last switched to (without its key unless the caller gives one again). A tool may switch
during a run (`SwitchLLMTool`): the swap happens between steps' LLM calls, never during one.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openhands.sdk.conversation.state import ConversationState
    from openhands.sdk.llm.llm import LLM
    from openhands.sdk.llm.llm_profile_store import LLMProfileStore

logger = logging.getLogger(__name__)

PROFILE_USAGE_PREFIX = "profile:"
"""The usage_id of an LLM loaded from profile `name` is `profile:<name>`."""


class LLMSwitching:
    """The model-switching part of `LocalConversation` (see the module docstring)."""

    # Provided by LocalConversation.
    _state: ConversationState
    _lock: threading.RLock

    def _save_config(self) -> None:
        raise NotImplementedError

    profile_store: LLMProfileStore | None = None
    """Where `switch_profile` loads profiles (None: `~/.openhands/profiles`)."""

    def switch_llm(self, llm: LLM) -> None:
        """Drive the agent with `llm` from the next LLM call on (see the module docstring)."""
        with self._lock:
            state = self._state
            previous = state.agent.llm
            state.agent = state.agent.model_copy(update={"llm": llm})
            state.stats.register_llm(llm)
            self._save_config()
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
        from openhands.sdk.llm.llm_profile_store import LLMProfileStore

        store = self.profile_store or LLMProfileStore()
        llm = store.load(profile_name)
        self.switch_llm(llm.model_copy(update={"usage_id": PROFILE_USAGE_PREFIX + profile_name}))
