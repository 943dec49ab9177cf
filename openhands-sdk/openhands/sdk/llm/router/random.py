"""`RandomRouter`: each completion goes to a randomly chosen LLM."""

from __future__ import annotations

import random

from openhands.sdk.llm.message import Message
from openhands.sdk.llm.router.base import RouterLLM


class RandomRouter(RouterLLM):
    """Picks one of `llms_for_routing` at random for every call."""

    router_name: str = "random_router"

    def select_llm(self, messages: list[Message]) -> str:
        """A random key of `llms_for_routing`."""
        del messages
        return random.choice(list(self.llms_for_routing))
