"""The agent server's stored settings, secrets and LLM profiles: their request and answer bodies.

Shared by the server (`/api/settings`, `/api/settings/secrets`, `/api/profiles`) and the
client (`RemoteWorkspace.get_llm()`, `get_secrets()`, `get_mcp_config()`), with the
reference SDK's names. Not imported by `import openhands.sdk`.
"""

from openhands.sdk.settings.models import (
    PROFILE_NAME_PATTERN,
    SECRET_NAME_PATTERN,
    AgentSettings,
    ProfileDetailResponse,
    ProfileInfo,
    ProfileListResponse,
    ProfileMutationResponse,
    SaveProfileRequest,
    SecretCreateRequest,
    SecretItemResponse,
    SecretsListResponse,
    SettingsResponse,
    SettingsUpdateRequest,
)

__all__ = [
    "PROFILE_NAME_PATTERN",
    "SECRET_NAME_PATTERN",
    "AgentSettings",
    "ProfileDetailResponse",
    "ProfileInfo",
    "ProfileListResponse",
    "ProfileMutationResponse",
    "SaveProfileRequest",
    "SecretCreateRequest",
    "SecretItemResponse",
    "SecretsListResponse",
    "SettingsResponse",
    "SettingsUpdateRequest",
]
