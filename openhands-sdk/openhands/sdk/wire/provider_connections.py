"""Wire models of provider connections (/api/llm/provider-connections): an API key (and base
URL) shared by LLM profiles that name it in `provider_connection_id`, so rotating the key is
one change. The reference server's shapes; the key is never answered (`api_key_set`)."""

from __future__ import annotations

from openhands.sdk.wire.base import WireAnswer, WireRequest
from pydantic import Field, SecretStr, field_validator

BLANK_KEY = "api_key must be a real key, not blank"


class ProviderConnectionCreateRequest(WireRequest):
    """Body of POST /api/llm/provider-connections."""

    display_name: str = Field(min_length=1, max_length=128, description="What a UI shows.")
    provider: str = Field(
        default="custom", min_length=1, max_length=128, description="e.g. openai, anthropic."
    )
    api_key: SecretStr = Field(min_length=1, description="The key (sealed, never answered).")
    base_url: str | None = Field(default=None, max_length=2048, description="Its endpoint.")

    @field_validator("api_key")
    @classmethod
    def _real_key(cls, value: SecretStr) -> SecretStr:
        if not value.get_secret_value().strip():
            raise ValueError(BLANK_KEY)
        return value


class ProviderConnectionUpdateRequest(WireRequest):
    """Body of PATCH /api/llm/provider-connections/{id}: the fields to change (at least one);
    `base_url: null` clears the endpoint, the key cannot be cleared (only replaced)."""

    display_name: str | None = Field(default=None, min_length=1, max_length=128)
    provider: str | None = Field(default=None, min_length=1, max_length=128)
    api_key: SecretStr | None = None
    base_url: str | None = Field(default=None, max_length=2048)

    @field_validator("display_name", "provider", "api_key")
    @classmethod
    def _not_null(cls, value: object) -> object:
        # Defaults are not validated: a None here was sent as an explicit null.
        if value is None:
            raise ValueError("cannot be set to null (leave it out to keep it)")
        if isinstance(value, SecretStr) and not value.get_secret_value().strip():
            raise ValueError(BLANK_KEY)
        return value


class ProviderConnectionResponse(WireAnswer):
    """A provider connection, without its key."""

    id: str
    display_name: str
    provider: str
    base_url: str | None = None
    created_at: int = Field(description="Unix seconds.")
    updated_at: int = Field(description="Unix seconds.")
    api_key_set: bool = False
