"""Helpers for client-against-server tests: a live agent server process, model names, LLMs."""

from __future__ import annotations

from dataclasses import dataclass

from agent_server.harness import FolderServer as LiveServer
from openhands.sdk import LLM
from openhands.sdk.testing import FakeOpenAIServer
from pydantic import SecretStr

__all__ = ["LiveServer", "Models", "make_llm"]


@dataclass
class Models:
    """Unique model names for one test: the agent's and the judge's."""

    agent: str
    judge: str


def make_llm(fake: FakeOpenAIServer, model: str, usage_id: str = "agent") -> LLM:
    """An LLM that talks to the fake server under `model`, failing fast (no retries)."""
    return LLM(
        model=f"openai/{model}",
        base_url=fake.base_url,
        api_key=SecretStr("fake-key"),
        usage_id=usage_id,
        num_retries=0,
    )
