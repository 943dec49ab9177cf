"""`StoredLLMDefaults`: which stored key an LLM sent without one gets.

Answers never carry a key, so `RemoteWorkspace.get_llm()` builds its LLM without one and the
server fills it in when the LLM comes back (a new conversation, a goal's judge). An LLM
without `api_key` gets, in this order:

1. the key of the stored profile its `usage_id` names (`profile:<name>`, what
   `get_llm(profile_name=...)` sets), if its model and base URL are that profile's;
2. the key of the stored settings' LLM (`/api/settings`), if its model and base URL are
   that one's;
3. the key (and base URL) of the provider connection its `provider_connection_id` names
   (`/api/llm/provider-connections`);
4. the server's LLM_API_KEY (and LLM_BASE_URL), only for LLM_BASE_URL (or, without it, the
   default endpoint of LLM_MODEL's provider).

Matching the endpoint (`config/llm_endpoints.py`: base URL, Ollama or Bedrock endpoint,
provider) keeps a key from ever being sent anywhere but where it was stored for. Keys filled here are never sealed with a conversation: a reopened conversation
gets them again from the stores, so changing a stored key changes it everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from openhands.agent_server.config import ServerConfig
from openhands.agent_server.config.llm_endpoints import same_endpoint
from openhands.agent_server.errors import InvalidRequestError
from openhands.agent_server.services.profile_store import ProfileStore
from openhands.agent_server.services.settings_store import SettingsStore
from openhands.sdk.llm import LLM
from openhands.sdk.llm.llm import SECRET_FIELDS
from openhands.sdk.wire import PROFILE_USAGE_PREFIX, StartConversationRequest

if TYPE_CHECKING:
    from openhands.agent_server.services.provider_connections import ProviderConnections


class StoredLLMDefaults:
    """Fills keyless LLMs from the stored profiles and settings, then the server's defaults."""

    def __init__(
        self,
        config: ServerConfig,
        settings: SettingsStore,
        profiles: ProfileStore,
        *,
        connections: Callable[[], ProviderConnections | None] = lambda: None,
    ) -> None:
        self._config = config
        self._settings = settings
        self._profiles = profiles
        self._connections = connections

    def fill_llm(self, llm: LLM) -> None:
        """Give `llm` a stored key where it has none (no I/O: the stores are in memory)."""
        if llm.api_key is None:
            source = self._stored_for(llm)
            if source is not None:
                for field in SECRET_FIELDS:
                    if getattr(llm, field) is None:
                        setattr(llm, field, getattr(source, field))
        if llm.api_key is None and llm.provider_connection_id:
            connections = self._connections()
            found = connections.key_for(llm.provider_connection_id) if connections else None
            # The key goes only where the connection points: an LLM that names the connection
            # but another base URL gets nothing from it.
            if found is not None and _same_url(llm.base_url or found[1], found[1]):
                llm.api_key, llm.base_url = found[0], found[1]
        self._config.fill_llm(llm)

    def _stored_for(self, llm: LLM) -> LLM | None:
        if llm.usage_id.startswith(PROFILE_USAGE_PREFIX):
            profile = self._profiles.find(llm.usage_id.removeprefix(PROFILE_USAGE_PREFIX))
            if profile is not None and same_endpoint(llm, profile.llm):
                return profile.llm
        stored = self._settings.llm()
        if stored is not None and same_endpoint(llm, stored):
            return stored
        return None

    def profile_llm(self, name: str, *, usage_id: str | None, field: tuple[str, ...]) -> LLM:
        """A copy of profile `name`'s LLM (key included) for a request field naming it.

        `usage_id` None keeps `profile:<name>`. An unknown profile is an `InvalidRequestError`
        naming `field` and the profiles there are.
        """
        profile = self._profiles.find(name)
        if profile is None:
            known = ", ".join(self._profiles.names()) or "none"
            raise InvalidRequestError(
                f"no LLM profile is named {name!r} (profiles: {known}); save one with "
                "POST /api/profiles/{name}",
                ("body", *field),
            )
        return profile.llm.copy_for(usage_id or f"{PROFILE_USAGE_PREFIX}{name}")


def _same_url(a: str | None, b: str | None) -> bool:
    return (a or "").rstrip("/") == (b or "").rstrip("/")


def with_llm_profile(
    request: StartConversationRequest, defaults: StoredLLMDefaults
) -> StartConversationRequest:
    """`request` whose agent uses the LLM of the profile `llm_profile` names (if it names one).

    The agent's `usage_id` is kept when the request set one on `agent.llm`.
    """
    if request.llm_profile is None:
        return request
    sent = request.agent.llm
    usage_id = sent.usage_id if "usage_id" in sent.model_fields_set else None
    llm = defaults.profile_llm(request.llm_profile, usage_id=usage_id, field=("llm_profile",))
    agent = request.agent.model_copy(update={"llm": llm})
    return request.model_copy(update={"agent": agent})
