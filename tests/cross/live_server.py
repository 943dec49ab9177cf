"""Helpers for client-against-server tests: a live agent server process, model names, LLMs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_server.harness import ServerProcess
from openhands.sdk import LLM
from openhands.sdk.testing import FakeOpenAIServer
from pydantic import SecretStr


class LiveServer(ServerProcess):
    """`python -m openhands.agent_server` (see `ServerProcess`) keeping its conversations under
    `root`, with optional session keys; `port` restarts a server where an earlier one ran."""

    def __init__(
        self,
        root: Path,
        api_keys: str = "",
        port: int | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        root.mkdir(parents=True, exist_ok=True)
        env = {
            "OH_SESSION_API_KEYS": api_keys,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            **(extra_env or {}),
        }
        super().__init__(root / "conversations", env=env, log_dir=root)
        self.root = root
        self.api_keys = api_keys
        if port is not None:
            self.port = port
            self.started = True  # the port is the test's choice: never move it

    def start(self) -> LiveServer:
        super().start()
        return self

    def headers(self) -> dict[str, str]:
        """Headers for direct REST calls (the first session key, when keys are set)."""
        return {"X-Session-API-Key": self.api_key} if self.api_key else {}


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
