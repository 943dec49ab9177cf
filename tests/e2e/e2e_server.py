"""A live agent server for browser tests that share one per module."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from agent_server.harness import FolderServer


@contextlib.contextmanager
def live_server(root: Path, api_keys: str = "", **llm_env: str) -> Iterator[str]:
    """Run an agent server (`FolderServer`) until the block ends; its URL. `llm_env` sets
    LLM_MODEL / LLM_BASE_URL / LLM_API_KEY; the developer's own are dropped."""
    server = FolderServer(root, api_keys, env=llm_env)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()
