"""`RemoteWorkspace`: a workspace that lives on an agent server."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator


class RemoteWorkspace(BaseModel):
    """Where a `RemoteConversation` runs: an agent server URL plus its session key."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    kind: Literal["RemoteWorkspace"] = "RemoteWorkspace"
    host: str = Field(description="Agent server base URL, e.g. 'http://127.0.0.1:8000'.")
    api_key: SecretStr | None = Field(default=None, description="Sent as X-Session-API-Key.")
    working_dir: str = Field(default="workspace/project", description="Folder on the server.")

    @field_validator("host")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"host must be an http(s) URL, got {value!r}")
        return value.rstrip("/")
