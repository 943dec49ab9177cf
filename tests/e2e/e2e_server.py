"""A live agent server process for browser tests, which a test may crash and restart."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from agent_server import harness


class ServerProcess(harness.ServerProcess):
    """`python -m openhands.agent_server` (see the suite's `ServerProcess`) keeping its
    folders and log under `root`, which a test may crash and restart on the same port.

    `llm_env` sets LLM_MODEL / LLM_BASE_URL / LLM_API_KEY; the developer's own are dropped.
    """

    def __init__(self, root: Path, api_keys: str = "", **llm_env: str) -> None:
        """Prepare a server keeping its conversations under `root`; `start()` runs it."""
        root.mkdir(parents=True, exist_ok=True)
        env = {
            "OH_SESSION_API_KEYS": api_keys,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            **llm_env,
        }
        super().__init__(root / "conversations", env=env, log_dir=root)

    def crash(self) -> None:
        """SIGKILL the process: no shutdown work runs, as when a machine dies."""
        self.kill()


@contextlib.contextmanager
def live_server(root: Path, api_keys: str = "", **llm_env: str) -> Iterator[str]:
    """Run an agent server (see `ServerProcess`) until the block ends; its URL."""
    server = ServerProcess(root, api_keys, **llm_env)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()
