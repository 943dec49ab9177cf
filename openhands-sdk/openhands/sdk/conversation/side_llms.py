"""`SideLLMs`: the copies of the agent's LLM a conversation asks side questions with.

`ask_agent` and `generate_title` must not share the agent's LLM: their usage is counted
under their own usage_id (`ask-agent-llm`, `title-generation`) and they must not stream.
Each copy is made on first use, registered in the conversation's stats, and reused.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.llm.llm import LLM

__all__ = ["SideLLMs"]


class SideLLMs:
    """One non-streaming copy of the agent's current LLM per usage_id, made on first use."""

    def __init__(self, agent_llm: Callable[[], LLM], stats: ConversationStats) -> None:
        self._agent_llm = agent_llm
        self._stats = stats
        self._llms: dict[str, LLM] = {}
        self._lock = threading.Lock()

    def get(self, usage_id: str) -> LLM:
        """The copy counted under `usage_id` (own metrics, registered in the stats)."""
        with self._lock:
            llm = self._llms.get(usage_id)
            if llm is None:
                llm = self._agent_llm().copy_for(usage_id, stream=False)
                self._stats.register_llm(llm)
                self._llms[usage_id] = llm
            return llm
