"""`AskOracleExecutor`: one completion from the `oracle` profile, without history or tools.

The profile is loaded by the conversation (`get_or_create_profile_llm`), from wherever that
conversation keeps profiles: `~/.openhands/profiles` in a plain script, the agent server's
own store (`/api/profiles`, keys sealed on its disk) when the conversation runs there.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, cast

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.llm import Message, TextContent
from openhands.sdk.tool import ToolExecutor
from openhands.tools.ask_oracle.schema import (
    ORACLE_PROFILE_NAME,
    AskOracleAction,
    AskOracleObservation,
)

if TYPE_CHECKING:
    from openhands.sdk.llm import LLM

__all__ = ["ORACLE_USAGE_ID", "AskOracleExecutor"]

ORACLE_USAGE_ID = f"oracle:{ORACLE_PROFILE_NAME}"
"""The usage_id the Oracle's cost is counted under in the conversation's stats."""

SYSTEM_PROMPT = (
    "You are the Oracle: a careful, highly capable reviewer giving a second opinion to a "
    "software agent. Answer its question directly with a concrete recommendation it can "
    "follow, and name the important risks. Do not call tools and do not do the work."
)


class AskOracleExecutor(ToolExecutor[AskOracleAction, AskOracleObservation]):
    """Loads the `oracle` profile once per conversation and asks it each question."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._llm: LLM | None = None

    def __call__(self, action: AskOracleAction, conversation: Any = None) -> AskOracleObservation:
        """Ask the Oracle; an error observation says what is missing when it cannot answer."""
        if conversation is None:
            return _error("The Oracle can only be asked from within a conversation.")
        try:
            llm = self._oracle(conversation)
        except FileNotFoundError as exc:
            return _error(
                f"The Oracle is not available: no LLM profile named {ORACLE_PROFILE_NAME!r} "
                f"({exc}). Save one to enable it."
            )
        except (OpenHandsError, ValueError) as exc:
            return _error(f"The Oracle is not available: {exc}")
        question = f"Question:\n{action.question}\n"
        if action.context:
            question += f"\nContext from the agent:\n{action.context}\n"
        messages = [
            Message(role="system", content=[TextContent(text=SYSTEM_PROMPT)]),
            Message(role="user", content=[TextContent(text=question)]),
        ]
        try:
            response = llm.completion(messages)
        except OpenHandsError as exc:
            return _error(f"The Oracle did not answer: {type(exc).__name__}: {exc}")
        text = "".join(
            part.text for part in response.message.content if isinstance(part, TextContent)
        ).strip()
        if not text:
            return _error("The Oracle returned an empty answer.")
        return AskOracleObservation.from_text(text)

    def _oracle(self, conversation: Any) -> LLM:
        with self._lock:
            if self._llm is not None:
                return self._llm
            load = getattr(conversation, "get_or_create_profile_llm", None)
            if callable(load):
                # The conversation knows where its profiles are: the user's folder in a
                # script, the server's own sealed store on the agent server.
                llm = cast("LLM", load(profile_name=ORACLE_PROFILE_NAME, usage_id=ORACLE_USAGE_ID))
            else:  # a host without profiles of its own: the user's folder
                from openhands.sdk.llm.llm_profile_store import LLMProfileStore

                llm = LLMProfileStore().load(ORACLE_PROFILE_NAME).copy_for(ORACLE_USAGE_ID)
            self._llm = llm
            return llm


def _error(text: str) -> AskOracleObservation:
    return AskOracleObservation.from_text(text, is_error=True)
