"""`TestLLM`: an `LLM` that replays scripted messages, for tests and examples."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from typing import Any

from openhands.sdk.llm.errors import LLMError
from openhands.sdk.llm.llm import LLM, LLMResponse
from openhands.sdk.llm.message import Message
from pydantic import PrivateAttr


class TestLLMExhaustedError(LLMError):
    """The script ran out: the code under test asked for more completions than scripted."""

    __test__ = False  # not a pytest test class, even when imported into a test module


class TestLLM(LLM):
    """Returns scripted assistant messages in order; an `Exception` in the script is raised.

    Each scripted item may carry a cost via `costs`, so budgets can be tested.
    """

    __test__ = False  # not a pytest test class

    model: str = "test/scripted"

    _script: deque[Message | Exception] = PrivateAttr(default_factory=deque)
    _costs: deque[float] = PrivateAttr(default_factory=deque)
    _calls: list[list[Message]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def from_messages(
        cls,
        messages: Iterable[Message | Exception],
        *,
        usage_id: str = "default",
        costs: Iterable[float] = (),
        **fields: Any,
    ) -> TestLLM:
        """Build a TestLLM that answers with `messages`, one per completion."""
        llm = cls(usage_id=usage_id, **fields)
        llm._script.extend(messages)
        llm._costs.extend(costs)
        return llm

    def add_messages(self, *messages: Message | Exception) -> None:
        """Append more scripted replies."""
        with self._lock:
            self._script.extend(messages)

    @property
    def remaining(self) -> int:
        """How many scripted replies are left."""
        return len(self._script)

    @property
    def calls(self) -> list[list[Message]]:
        """The message lists this LLM was called with, oldest first."""
        return list(self._calls)

    def _complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        stream: bool,
        **_: Any,  # on_token, call_context, params: a script neither streams nor sends
    ) -> LLMResponse:
        with self._lock:
            self._calls.append(list(messages))
            if not self._script:
                raise TestLLMExhaustedError(
                    f"TestLLM {self.usage_id!r} ran out of scripted replies after "
                    f"{len(self._calls) - 1} completions; script more messages.",
                    model=self.model,
                )
            item = self._script.popleft()
            cost = self._costs.popleft() if self._costs else 0.0
        if isinstance(item, Exception):
            raise item
        reply = item if item.role == "assistant" else item.model_copy(update={"role": "assistant"})
        return LLMResponse(message=reply, cost=cost, prompt_tokens=0, completion_tokens=0)
