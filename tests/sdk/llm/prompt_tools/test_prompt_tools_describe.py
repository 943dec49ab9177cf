"""The tools section of the system prompt: every tool, its parameters and how to call it."""

from __future__ import annotations

from typing import Any

from openhands.sdk.llm.prompt_tools.describe import tools_section, type_label

EDITOR: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "file_editor",
        "description": "Edit files.",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "enum": ["view", "create"], "description": "What."},
                "path": {"type": "string", "description": "Where."},
                "view_range": {
                    "anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}],
                    "default": None,
                },
                "mode": {"type": "string", "default": ""},
                "edits": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/Edit"},
                    "description": "Edits to make.",
                },
            },
            "required": ["command", "path"],
            "$defs": {
                "Edit": {
                    "type": "object",
                    "properties": {"old": {"type": "string"}, "new": {"type": "string"}},
                    "required": ["old"],
                }
            },
        },
    },
}
PING: dict[str, Any] = {"type": "function", "function": {"name": "ping"}}


def test_the_section_teaches_the_format_and_lists_every_tool() -> None:
    text = tools_section([EDITOR, PING])

    assert "<function=TOOL_NAME>" in text and "</function>" in text
    assert "EXECUTION RESULT of [TOOL_NAME]:" in text
    assert "## file_editor\nEdit files.\nParameters:" in text
    assert "## ping\nParameters: none." in text
    assert "<parameter=command>create</parameter>" in text  # the worked example


def test_parameters_show_type_need_choices_and_defaults() -> None:
    text = tools_section([EDITOR])

    assert "  - command (string; required; one of: view, create): What." in text
    assert "  - path (string; required): Where." in text
    assert "  - view_range (array of integer; optional)" in text
    assert '  - mode (string; optional; default: "")' in text


def test_nested_fields_are_listed_under_their_parameter() -> None:
    text = tools_section([EDITOR])

    assert "  - edits (array of object; optional): Edits to make." in text
    assert "    - old (string; required)" in text
    assert "    - new (string; optional)" in text


def test_without_the_file_editor_there_is_no_example_naming_it() -> None:
    assert "file_editor" not in tools_section([PING])


def test_type_labels() -> None:
    assert type_label({"type": ["integer", "null"]}) == "integer"
    assert type_label({"anyOf": [{"type": "string"}, {"type": "number"}]}) == "string or number"
    assert type_label({"enum": ["a", "b"]}) == "string"
    assert type_label(None) == "any"
