"""Bodies of the settings, secrets and profile routes (the reference server's shapes).

Answers never hold a secret: an LLM's `api_key` is dropped from every dump, stored secrets
are listed by name and description only, and `llm_api_key_is_set` / `api_key_set` say
whether a key is stored.
"""

from __future__ import annotations

from typing import Any

from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.llm_profile_store import PROFILE_NAME
from openhands.sdk.mcp.config import MCPServer
from pydantic import BaseModel, ConfigDict, Field, SecretStr

SECRET_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,63}$"
"""A stored secret's name: an environment variable name of 1-64 characters, a letter first."""

PROFILE_NAME_PATTERN = PROFILE_NAME.pattern
"""An LLM profile's name: 1-64 characters, a letter or digit, then letters, digits, '.', '_'
or '-'."""

_WIRE = ConfigDict(defer_build=True)


class StoredAgentSettings(BaseModel):
    """The stored agent settings: the LLM and MCP servers new agents use, plus any other keys.

    Keys other than `llm` and `mcp_config` are kept as given (for clients that store more of
    the reference's agent settings) and are never treated as secret.
    """

    model_config = ConfigDict(defer_build=True, extra="allow")

    llm: LLM | None = Field(default=None, description="The LLM new agents use (its key sealed).")
    mcp_config: dict[str, MCPServer] = Field(
        default_factory=dict, description="MCP servers by name (their env and headers sealed)."
    )


class SettingsResponse(BaseModel):
    """GET and PATCH /api/settings: the stored settings, without any secret."""

    model_config = _WIRE

    agent_settings: dict[str, Any] = Field(
        description="`llm` (its `api_key` always null), `mcp_config` and any other keys stored."
    )
    conversation_settings: dict[str, Any] = Field(default_factory=dict)
    llm_api_key_is_set: bool = Field(description="Whether `agent_settings.llm` has a stored key.")
    active_profile: str | None = Field(
        default=None, description="The LLM profile last applied to `agent_settings.llm`."
    )
    active_agent_profile_id: str | None = None
    misc_settings: dict[str, Any] = Field(
        default_factory=dict, description="Client-owned data the server stores without reading."
    )


class SettingsUpdateRequest(BaseModel):
    """PATCH /api/settings: diffs deep-merged into the stored settings.

    Nested objects merge key by key and a `null` inside one removes that key (e.g.
    `{"llm": {"api_key": null}}` forgets the key); lists are replaced whole. `active_profile`
    copies that profile's LLM into `agent_settings.llm` unless the diff gives an `llm`.
    """

    model_config = _WIRE

    agent_settings_diff: dict[str, Any] | None = None
    conversation_settings_diff: dict[str, Any] | None = None
    misc_settings_diff: dict[str, Any] | None = None
    active_profile: str | None = Field(default=None, pattern=PROFILE_NAME_PATTERN)
    active_agent_profile_id: str | None = None


class SecretCreateRequest(BaseModel):
    """PUT /api/settings/secrets: create or replace one named secret."""

    model_config = _WIRE

    name: str = Field(
        pattern=SECRET_NAME_PATTERN,
        description="An environment variable name: a letter, then letters, digits or _ "
        "(at most 64).",
    )
    value: SecretStr = Field(description="The secret; sealed at rest, never returned.")
    description: str | None = Field(default=None, max_length=1000)


class SecretItemResponse(BaseModel):
    """One stored secret as clients see it: its name and description, never its value."""

    model_config = _WIRE

    name: str
    description: str | None = None


class SecretsListResponse(BaseModel):
    """GET /api/settings/secrets."""

    model_config = _WIRE

    secrets: list[SecretItemResponse]


class ProfileInfo(BaseModel):
    """One LLM profile in a listing."""

    model_config = _WIRE

    name: str
    model: str | None = None
    base_url: str | None = None
    provider_connection_id: str | None = None
    provider_connection_broken: bool = False
    api_key_set: bool = False


class ProfileListResponse(BaseModel):
    """GET /api/profiles."""

    model_config = _WIRE

    profiles: list[ProfileInfo]
    active_profile: str | None = None


class ProfileDetailResponse(BaseModel):
    """GET /api/profiles/{name}: the profile's LLM settings, `api_key` always null."""

    model_config = _WIRE

    name: str
    config: dict[str, Any]
    api_key_set: bool = False


class ProfileMutationResponse(BaseModel):
    """POST and DELETE /api/profiles/{name}."""

    model_config = _WIRE

    name: str
    message: str


class SaveProfileRequest(BaseModel):
    """POST /api/profiles/{name}: save an LLM configuration under that name."""

    model_config = _WIRE

    llm: LLM
    include_secrets: bool = Field(
        default=True, description="Store the LLM's key (sealed) with the profile."
    )
