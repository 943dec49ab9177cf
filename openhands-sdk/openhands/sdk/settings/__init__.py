"""Settings: an agent described as plain data (`OpenHandsAgentSettings`, `model.py`), and the
agent server's stored settings, secrets and LLM profiles as its routes read and answer them
(`api_models.py`, shared by the server and `RemoteWorkspace`).

The names load on first use (this package is not imported by `import openhands.sdk`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.settings.api_models import (
        PROFILE_NAME_PATTERN,
        SECRET_NAME_PATTERN,
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
        StoredAgentSettings,
    )
    from openhands.sdk.settings.model import (
        AGENT_SETTINGS_SCHEMA_VERSION,
        AgentSettingsBase,
        CondenserSettings,
        CondenserSettingsConfig,
        LLMSummarizingCondenserSettings,
        NoOpCondenserSettings,
        OpenHandsAgentSettings,
        create_agent_from_settings,
        default_agent_settings,
        validate_agent_settings,
    )

_MODEL_NAMES = (
    "AGENT_SETTINGS_SCHEMA_VERSION",
    "AgentSettingsBase",
    "CondenserSettings",
    "CondenserSettingsConfig",
    "LLMSummarizingCondenserSettings",
    "NoOpCondenserSettings",
    "OpenHandsAgentSettings",
    "create_agent_from_settings",
    "default_agent_settings",
    "validate_agent_settings",
)

_API_NAMES = (
    "PROFILE_NAME_PATTERN",
    "SECRET_NAME_PATTERN",
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
    "StoredAgentSettings",
)


__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(_MODEL_NAMES, "openhands.sdk.settings.model"),
        **dict.fromkeys(_API_NAMES, "openhands.sdk.settings.api_models"),
    },
)


__all__ = [
    "AGENT_SETTINGS_SCHEMA_VERSION",
    "PROFILE_NAME_PATTERN",
    "SECRET_NAME_PATTERN",
    "AgentSettingsBase",
    "CondenserSettings",
    "CondenserSettingsConfig",
    "LLMSummarizingCondenserSettings",
    "NoOpCondenserSettings",
    "OpenHandsAgentSettings",
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
    "StoredAgentSettings",
    "create_agent_from_settings",
    "default_agent_settings",
    "validate_agent_settings",
]
