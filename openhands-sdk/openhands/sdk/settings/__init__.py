"""Settings: an agent described as plain data (`OpenHandsAgentSettings`), JSON in and out.

The names load on first use (this package is not imported by `import openhands.sdk`).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    if name in _MODEL_NAMES:
        value = getattr(import_module("openhands.sdk.settings.model"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
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
]
