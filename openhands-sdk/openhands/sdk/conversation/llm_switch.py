"""`LLMSwitching`: switching a `LocalConversation`'s model mid-conversation, by object or profile.

A collaborator the conversation owns (see `conversation.core`). The new LLM drives every step
from the next one on (the history is kept: the new model reads the same conversation), its
usage is counted under its own `usage_id` (a profile's is `profile:<name>`), and the switch
is saved with the conversation's configuration, so a reopened conversation keeps the model
it last switched to (without its key unless the caller gives one again). A tool may switch
during a run (`SwitchLLMTool`): the swap happens between steps' LLM calls, never during one.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openhands.sdk.conversation.core import ConversationCore
    from openhands.sdk.llm.llm import LLM
    from openhands.sdk.llm.llm_profile_store import LLMProfileStore

__all__ = ["PROFILE_USAGE_PREFIX", "LLMSwitching"]

logger = logging.getLogger(__name__)

PROFILE_USAGE_PREFIX = "profile:"
"""The usage_id of an LLM loaded from profile `name` is `profile:<name>`."""


class LLMSwitching:
    """Replaces the agent's LLM of a conversation (see the module docstring)."""

    def __init__(self, core: ConversationCore) -> None:
        self._core = core
        self.profile_store: LLMProfileStore | None = None
        """Where `switch_profile` loads profiles (None: `~/.openhands/profiles`)."""

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
        from openhands.sdk.llm.llm_profile_store import LLMProfileStore

        store = self.profile_store or LLMProfileStore()
        llm = store.load(profile_name)
        self.switch_llm(llm.model_copy(update={"usage_id": PROFILE_USAGE_PREFIX + profile_name}))
