"""StoredLLMDefaults: a keyless LLM gets the stored key of the same endpoint, nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.errors import InvalidRequestError
from openhands.agent_server.services.sealing import SecretBox
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.agent_server.services.stored_llms import with_llm_profile
from openhands.sdk import LLM
from openhands.sdk.settings import SettingsUpdateRequest
from openhands.sdk.wire import StartConversationRequest
from pydantic import SecretStr

KEY = "stored-llms-key-" + "k" * 40


def _stores(root: Path, **env: str) -> ServerSettings:
    config = ServerConfig.from_env({"OH_CONVERSATIONS_PATH": str(root / "c"), **env})
    stores = ServerSettings(config, SecretBox([KEY]))
    stores.load()
    stores.profiles.save(
        "fast",
        LLM(model="openai/fast", base_url="http://p/v1", api_key=SecretStr("sk-profile")),
        include_secrets=True,
    )
    stores.settings.update(
        SettingsUpdateRequest(
            agent_settings_diff={"llm": {"model": "openai/main", "api_key": "sk-settings"}}
        )
    )
    return stores


def _key(llm: LLM) -> str | None:
    return None if llm.api_key is None else llm.api_key.get_secret_value()


def test_an_llm_named_after_a_profile_gets_its_key(tmp_path: Path) -> None:
    llm = LLM(model="openai/fast", base_url="http://p/v1", usage_id="profile:fast")

    _stores(tmp_path).llm_defaults.fill_llm(llm)

    assert _key(llm) == "sk-profile"


def test_a_profile_key_never_goes_to_another_endpoint(tmp_path: Path) -> None:
    llm = LLM(model="openai/fast", base_url="http://elsewhere/v1", usage_id="profile:fast")

    _stores(tmp_path).llm_defaults.fill_llm(llm)

    assert llm.api_key is None


def test_the_settings_llm_key_goes_to_the_same_model(tmp_path: Path) -> None:
    same, other = LLM(model="openai/main"), LLM(model="openai/other")
    stores = _stores(tmp_path)

    stores.llm_defaults.fill_llm(same)
    stores.llm_defaults.fill_llm(other)

    assert _key(same) == "sk-settings" and other.api_key is None


def test_a_key_the_client_sent_is_kept(tmp_path: Path) -> None:
    llm = LLM(model="openai/main", api_key=SecretStr("sk-client"))

    _stores(tmp_path).llm_defaults.fill_llm(llm)

    assert _key(llm) == "sk-client"


def test_without_a_stored_match_the_server_llm_api_key_applies(tmp_path: Path) -> None:
    llm = LLM(model="openai/other")

    _stores(tmp_path, LLM_API_KEY="sk-server").llm_defaults.fill_llm(llm)

    assert _key(llm) == "sk-server"


def test_llm_profile_gives_the_agent_the_profiles_llm(tmp_path: Path) -> None:
    request = StartConversationRequest.model_validate({"llm_profile": "fast"})

    resolved = with_llm_profile(request, _stores(tmp_path).llm_defaults)

    llm = resolved.agent.llm
    assert (llm.model, llm.base_url, _key(llm)) == ("openai/fast", "http://p/v1", "sk-profile")
    assert llm.usage_id == "profile:fast"


def test_an_unknown_llm_profile_names_the_field(tmp_path: Path) -> None:
    request = StartConversationRequest.model_validate({"llm_profile": "slow"})

    with pytest.raises(InvalidRequestError) as caught:
        with_llm_profile(request, _stores(tmp_path).llm_defaults)

    assert caught.value.loc == ("body", "llm_profile")
    assert "fast" in caught.value.message


def test_a_provider_connections_key_goes_only_to_its_own_endpoint(tmp_path: Path) -> None:
    from openhands.sdk.wire.provider_connections import ProviderConnectionCreateRequest

    stores = _stores(tmp_path)
    connection = stores.provider_connections().create(
        ProviderConnectionCreateRequest(
            display_name="Shared",
            api_key=SecretStr("sk-shared"),
            base_url="http://shared/v1",
        )
    )
    linked = LLM(model="openai/a", provider_connection_id=connection.id)
    elsewhere = LLM(
        model="openai/a", base_url="http://elsewhere/v1", provider_connection_id=connection.id
    )
    same = LLM(model="openai/a", base_url="http://shared/v1/", provider_connection_id=connection.id)

    for llm in (linked, elsewhere, same):
        stores.llm_defaults.fill_llm(llm)

    assert (_key(linked), linked.base_url) == ("sk-shared", "http://shared/v1")
    assert (_key(elsewhere), elsewhere.base_url) == (None, "http://elsewhere/v1")
    assert _key(same) == "sk-shared"
    reopened = ServerSettings(
        ServerConfig.from_env({"OH_CONVERSATIONS_PATH": str(tmp_path / "c")}), SecretBox([KEY])
    )
    reopened.load()  # the connections file exists: read at start
    again = LLM(model="openai/a", provider_connection_id=connection.id)
    reopened.llm_defaults.fill_llm(again)
    assert _key(again) == "sk-shared"
