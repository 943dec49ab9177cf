"""The settings forms a UI renders (GET /api/settings/agent-schema, conversation-schema),
derived from the settings models themselves, so a new field shows up without a change here.

A top-level field holding an object of settings (`llm`, `condenser`, `agent_context`) is a
section of its own, its fields keyed `llm.model`, ...; every other field is in `general`.
A value type comes from the field's JSON schema; secrets (`SecretStr`) are marked so a form
masks them; enums and literals are choices.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from openhands.sdk.wire.settings_schema import (
    SettingProminence,
    SettingsChoice,
    SettingsFieldSchema,
    SettingsSchema,
    SettingsSectionSchema,
    SettingsValueType,
)
from pydantic import BaseModel, Field

_VALUE_TYPES: frozenset[str] = frozenset(
    {"string", "integer", "number", "boolean", "array", "object"}
)

_PROMINENT: dict[str, SettingProminence] = {
    "llm.model": SettingProminence.CRITICAL,
    "llm.api_key": SettingProminence.CRITICAL,
    "llm.base_url": SettingProminence.MAJOR,
    "max_iterations": SettingProminence.MAJOR,
}


class ConversationSettings(BaseModel):
    """What a conversation is created with besides its agent (StartConversationRequest)."""

    max_iterations: int = Field(default=500, ge=1, description="Agent steps allowed per run.")
    confirmation_policy: Literal["NeverConfirm", "AlwaysConfirm", "ConfirmRisky"] = Field(
        default="NeverConfirm", description="Which tool calls wait for the person's approval."
    )
    security_analyzer: Literal["none", "LLMSecurityAnalyzer", "PatternSecurityAnalyzer"] = Field(
        default="none", description="What rates each tool call's risk."
    )


@functools.cache
def agent_settings_schema() -> SettingsSchema:
    """The form of the agent settings (`OpenHandsAgentSettings`)."""
    from openhands.sdk.settings import OpenHandsAgentSettings

    return export_schema(OpenHandsAgentSettings, variant="openhands")


@functools.cache
def conversation_settings_schema() -> SettingsSchema:
    """The form of a conversation's own settings."""
    return export_schema(ConversationSettings)


def export_schema(model: type[BaseModel], *, variant: str | None = None) -> SettingsSchema:
    """`model`'s settings form (see the module docstring)."""
    schema = model.model_json_schema()
    defs: dict[str, Any] = schema.get("$defs", {})
    general: list[SettingsFieldSchema] = []
    sections: list[SettingsSectionSchema] = []
    for name, prop in schema.get("properties", {}).items():
        nested = _object_properties(prop, defs)
        if nested:
            label = _label(name)
            fields = [
                _field(f"{name}.{sub}", sub, sub_prop, defs, name, label)
                for sub, sub_prop in nested.items()
            ]
            sections.append(
                SettingsSectionSchema(key=name, label=label, fields=fields, variant=variant)
            )
        else:
            general.append(_field(name, name, prop, defs, "general", "General"))
    if general:
        sections.insert(0, SettingsSectionSchema(key="general", label="General", fields=general))
    return SettingsSchema(model_name=model.__name__, sections=sections)


def _resolve(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = prop.get("$ref")
    if isinstance(ref, str):
        return defs.get(ref.rsplit("/", 1)[-1], {})
    return prop


def _variants(prop: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The non-null alternatives of a property, references resolved."""
    options = prop.get("anyOf") or prop.get("oneOf")
    if not options:
        return [_resolve(prop, defs)]
    return [_resolve(o, defs) for o in options if o.get("type") != "null"]


def _object_properties(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """The merged properties of an object-of-settings property (none for anything else)."""
    merged: dict[str, Any] = {}
    for option in _variants(prop, defs):
        if option.get("type") == "object" and "properties" in option:
            for key, value in option["properties"].items():
                if key not in merged:
                    merged[key] = value
                elif "const" in value and value != merged[key]:
                    # A discriminator (`condenser_kind`): each variant's value is a choice.
                    known = merged[key].get("anyOf", [merged[key]])
                    merged[key] = {**merged[key], "anyOf": [*known, value]}
    return merged


def _field(
    key: str,
    name: str,
    prop: dict[str, Any],
    defs: dict[str, Any],
    section: str,
    section_label: str,
) -> SettingsFieldSchema:
    options = _variants(prop, defs)
    first = options[0] if options else {}
    kind = first.get("type")
    if kind not in _VALUE_TYPES:
        kind = "object" if "properties" in first or "additionalProperties" in first else "string"
    choices: list[Any] = []
    for option in options:
        choices += option.get("enum", [])
        if "const" in option:
            choices.append(option["const"])
    value_type: SettingsValueType = kind  # type: ignore[assignment]
    return SettingsFieldSchema(
        key=key,
        label=_label(name),
        description=prop.get("description") or first.get("description"),
        section=section,
        section_label=section_label,
        value_type=value_type,
        default=prop.get("default"),
        prominence=_PROMINENT.get(key, SettingProminence.MINOR),
        secret=any(o.get("format") == "password" for o in options),
        choices=[SettingsChoice(value=c, label=str(c)) for c in choices],
    )


def _label(name: str) -> str:
    words = name.replace("_", " ").strip()
    return (words[:1].upper() + words[1:]).replace("Llm", "LLM").replace("Mcp", "MCP")
