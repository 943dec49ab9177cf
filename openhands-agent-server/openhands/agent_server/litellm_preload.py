"""Import litellm in the background once the server listens (`OH_PRELOAD_LITELLM`).

The SDK imports litellm on the first LLM call, which keeps `import openhands.sdk` and the
server's start-up fast; but then a user's first message waits seconds for that import
before the model is even asked. The server imports it in one low-priority worker thread
right after it starts listening: /health answers as soon as before, and by the time a
conversation's first LLM call comes the import is done (or under way: Python's import lock
makes that call wait for it rather than import twice).
"""

from __future__ import annotations

import logging
import time

from openhands.agent_server.blocking import BlockingPool

logger = logging.getLogger(__name__)


def preload_litellm(pool: BlockingPool) -> None:
    """Start importing litellm in one of the pool's (low-priority) threads."""
    pool.submit(_import_litellm)


def _import_litellm() -> None:
    # The SDK's own lazy import: it applies the SDK's import-time settings (no network
    # fetch of the price map, no .env loading) exactly as a first LLM call would.
    from openhands.sdk.llm.llm import _import_litellm as import_litellm

    started = time.perf_counter()
    try:
        import_litellm()
        _load_openai_client()
    except Exception as exc:  # the first LLM call will report it properly
        logger.warning("preloading litellm failed (%s); the first LLM call will retry", exc)
        return
    logger.info("litellm preloaded in %.1f s", time.perf_counter() - started)


def _load_openai_client() -> None:
    """Load the OpenAI client's lazily imported modules (~500 of them, ~0.4 s).

    litellm calls OpenAI-compatible providers through that client, and it imports its
    resources and types on first use; building one client (no request is sent) does it now.
    """
    import openai

    client = openai.OpenAI(api_key="preload", base_url="http://127.0.0.1:9/v1")
    try:
        _ = client.chat.completions
    finally:
        client.close()
