"""`MultimodalRouter`: images (or a prompt too long for the secondary) go to the primary."""

from __future__ import annotations

import logging
from typing import ClassVar, Self

from openhands.sdk.llm.message import Message
from openhands.sdk.llm.router.base import RouterLLM
from pydantic import model_validator

logger = logging.getLogger(__name__)


class MultimodalRouter(RouterLLM):
    """Routes to `"primary"` (a vision model) when a message holds an image or the prompt
    exceeds the secondary's context window, else to `"secondary"` (cheaper, text only)."""

    router_name: str = "multimodal_router"

    PRIMARY_MODEL_KEY: ClassVar[str] = "primary"
    SECONDARY_MODEL_KEY: ClassVar[str] = "secondary"

    @model_validator(mode="after")
    def _needs_primary_and_secondary(self) -> Self:
        missing = [
            key
            for key in (self.PRIMARY_MODEL_KEY, self.SECONDARY_MODEL_KEY)
            if key not in self.llms_for_routing
        ]
        if missing:
            raise ValueError(
                f"MultimodalRouter needs llms_for_routing keys 'primary' and 'secondary'; "
                f"missing: {missing}"
            )
        return self

    def select_llm(self, messages: list[Message]) -> str:
        """`"primary"` for images or an over-long prompt, else `"secondary"`."""
        if any(message.contains_image for message in messages):
            return self.PRIMARY_MODEL_KEY
        secondary = self.llms_for_routing[self.SECONDARY_MODEL_KEY]
        limit = secondary.max_input_tokens
        if limit and secondary.get_token_count(messages) > limit:
            logger.info(
                "The prompt exceeds the secondary LLM's %d tokens; using the primary", limit
            )
            return self.PRIMARY_MODEL_KEY
        return self.SECONDARY_MODEL_KEY
