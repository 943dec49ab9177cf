"""Import litellm in the background once the server listens, when a configured model needs it.

The SDK reaches OpenAI-compatible servers natively and imports litellm only for a model that
goes through it (`LLM.uses_native_transport()`), on that model's first call: seconds of
import before the model is even asked. When the server is configured with such a model (its
LLM_MODEL, the stored settings' LLM, or an LLM profile), it imports litellm in one
low-priority worker thread right after it starts listening (`OH_PRELOAD_LITELLM`, on by
default): /health answers as soon as before, and by the time a conversation's first call
comes the import is done (or under way: Python's import lock makes that call wait for it
rather than import twice). With only OpenAI-compatible models configured, or none, nothing
is imported: the server stays small (no ~150 MB of litellm) and the native transport's
modules are loaded instead, which takes milliseconds.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from openhands.agent_server.blocking import BlockingPool

if TYPE_CHECKING:
    from openhands.agent_server.config import ServerConfig
    from openhands.agent_server.services.server_settings import ServerSettings
    from openhands.sdk.llm import LLM

logger = logging.getLogger(__name__)


def preload_litellm(
    pool: BlockingPool, config: ServerConfig, settings: ServerSettings | None = None
) -> None:
    """In one of the pool's (low-priority) threads, import what the configured models need."""
    pool.submit(_preload, config, settings)


def configured_llms(config: ServerConfig, settings: ServerSettings | None) -> list[LLM]:
    """The LLMs this server is configured with: LLM_MODEL, the stored settings' LLM, the
    stored profiles' LLMs."""
    from openhands.sdk.llm import LLM

    found: list[LLM] = []
    if config.llm_model:
        try:
            found.append(LLM(model=config.llm_model, base_url=config.llm_base_url))
        except ValueError as exc:  # reported where the model is used
            logger.debug("LLM_MODEL %r is not a valid LLM: %s", config.llm_model, exc)
    if settings is not None:
        stored = settings.settings.llm()
        if stored is not None:
            found.append(stored)
        for name in settings.profiles.names():
            profile = settings.profiles.find(name)
            if profile is not None:
                found.append(profile.llm)
    return found


def models_needing_litellm(config: ServerConfig, settings: ServerSettings | None) -> list[str]:
    """The configured models that go through litellm (their first call would import it)."""
    return sorted(
        {llm.model for llm in configured_llms(config, settings) if not llm.uses_native_transport()}
    )


def _preload(config: ServerConfig, settings: ServerSettings | None) -> None:
    started = time.perf_counter()
    try:
        needing = models_needing_litellm(config, settings)
        if not needing:
            _load_native_transport()
            logger.debug("no configured model needs litellm: not preloaded")
            return
        # The SDK's own lazy import: it applies the SDK's import-time settings (no network
        # fetch of the price map, no .env loading) exactly as a first LLM call would.
        from openhands.sdk.llm._litellm import import_litellm

        import_litellm()
        _load_openai_client()
    except Exception as exc:  # the first LLM call will report it properly
        logger.warning("preloading the LLM transport failed (%s); the first call will retry", exc)
        return
    logger.info(
        "litellm preloaded in %.1f s (for %s)", time.perf_counter() - started, ", ".join(needing)
    )


def _load_native_transport() -> None:
    """The native transport's modules (a few ms), so the first call does not load them."""
    from openhands.sdk.llm.openai_compat import call  # noqa: F401


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
