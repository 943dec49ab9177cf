"""Wire models of a settings form: what GET /api/settings/agent-schema and
/api/settings/conversation-schema answer, so a UI can render the settings without knowing
them in advance (the reference server's shape)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from openhands.sdk.wire.base import WireAnswer
from pydantic import BaseModel, ConfigDict, Field

SettingsValueType = Literal["string", "integer", "number", "boolean", "array", "object"]


class SettingProminence(StrEnum):
    """How prominently a form shows a field."""

    CRITICAL = "critical"
    MAJOR = "major"
    MINOR = "minor"


class SettingsChoice(BaseModel):
    """One allowed value of a choice field."""

    model_config = ConfigDict(defer_build=True)

    value: bool | int | float | str
    label: str


class SettingsFieldSchema(BaseModel):
    """One field of a settings form; `key` is its dotted path in the settings JSON."""

    model_config = ConfigDict(defer_build=True)

    key: str
    label: str
    description: str | None = None
    section: str
    section_label: str
    value_type: SettingsValueType
    default: Any = None
    prominence: SettingProminence = SettingProminence.MINOR
    depends_on: list[str] = Field(default_factory=list)
    secret: bool = Field(default=False, description="Never answered back once stored.")
    choices: list[SettingsChoice] = Field(default_factory=list)
    variant: str | None = None


class SettingsSectionSchema(BaseModel):
    """A group of fields (e.g. `llm`)."""

    model_config = ConfigDict(defer_build=True)

    key: str
    label: str
    fields: list[SettingsFieldSchema]
    variant: str | None = None


class SettingsSchema(WireAnswer):
    """A settings form: the settings model's name and its sections."""

    model_name: str
    sections: list[SettingsSectionSchema]
