"""LLMs that route each completion to one of several LLMs."""

from openhands.sdk.llm.router.base import RouterLLM
from openhands.sdk.llm.router.multimodal import MultimodalRouter
from openhands.sdk.llm.router.random import RandomRouter

__all__ = ["MultimodalRouter", "RandomRouter", "RouterLLM"]
