"""Reading tool calls out of a reply's text: the taught format, its slips, and wrong calls."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openhands.sdk.llm.prompt_tools.parse import parse_reply

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "terminal",
            "parameters": {
                "type": "object",
                "properties": {
                    "command": {"type": "string"},
                    "is_input": {"type": "boolean"},
                    "timeout": {"anyOf": [{"type": "number"}, {"type": "null"}]},
                },
                "required": ["command"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "file_editor",
            "parameters": {
                "type": "object",
                "properties": {
                    "command": {"type": "string", "enum": ["view", "create"]},
                    "path": {"type": "string"},
                    "file_text": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "view_range": {
                        "anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]
                    },
                    "options": {"$ref": "#/$defs/Options"},
                },
                "required": ["command", "path"],
            },
        },
    },
]


def calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, json.loads(c.arguments)) for c in parse_reply(text, TOOLS).calls]


def test_a_call_in_the_taught_format_becomes_a_tool_call_with_typed_json_arguments() -> None:
    reply = parse_reply(
        "Listing first.\n<function=terminal>\n<parameter=command>ls -la</parameter>\n"
        "<parameter=timeout>30</parameter>\n<parameter=is_input>False</parameter>\n</function>",
        TOOLS,
    )

    assert reply.text == "Listing first."
    [call] = reply.calls
    assert call.name == "terminal"
    assert json.loads(call.arguments) == {"command": "ls -la", "timeout": 30, "is_input": False}
    assert call.id.startswith("call_")


def test_a_multi_line_value_keeps_its_indentation_and_inner_blank_lines() -> None:
    text = (
        "<function=file_editor>\n<parameter=command>create</parameter>\n"
        "<parameter=path>a.py</parameter>\n<parameter=file_text>\n"
        "    indented = 1\n\nprint(indented)\n</parameter>\n</function>"
    )

    [(_, arguments)] = calls(text)

    assert arguments["file_text"] == "    indented = 1\n\nprint(indented)"


def test_text_stays_text_where_the_schema_allows_a_string() -> None:
    [(_, arguments)] = calls(
        "<function=file_editor>\n<parameter=command>create</parameter>\n"
        "<parameter=path>42</parameter>\n<parameter=file_text>[1, 2]</parameter>\n</function>"
    )

    assert arguments == {"command": "create", "path": "42", "file_text": "[1, 2]"}


def test_lists_are_read_as_json() -> None:
    [(_, arguments)] = calls(
        "<function=file_editor>\n<parameter=command>view</parameter>\n"
        "<parameter=path>a.py</parameter>\n<parameter=view_range>[1, -1]</parameter>\n</function>"
    )

    assert arguments["view_range"] == [1, -1]


@pytest.mark.parametrize(
    "ending",
    ["", "\n", "\n</", "\n</function", "</function>\n\nsome text the stop word would have cut"],
)
def test_a_reply_cut_by_the_stop_word_still_gives_its_call(ending: str) -> None:
    text = "<function=terminal>\n<parameter=command>pwd</parameter>" + ending

    assert calls(text) == [("terminal", {"command": "pwd"})]


def test_an_unclosed_last_parameter_ends_with_the_call() -> None:
    assert calls("<function=terminal>\n<parameter=command>echo hi\n") == [
        ("terminal", {"command": "echo hi"})
    ]
    assert calls(
        "<function=file_editor><parameter=command>view<parameter=path>x</parameter></function>"
    ) == [("file_editor", {"command": "view", "path": "x"})]


def test_several_calls_are_returned_in_order() -> None:
    text = (
        "Two steps.\n<function=terminal><parameter=command>mkdir d</parameter></function>\n"
        "<function=terminal><parameter=command>ls d</parameter></function>"
    )

    assert calls(text) == [
        ("terminal", {"command": "mkdir d"}),
        ("terminal", {"command": "ls d"}),
    ]


def test_calls_after_an_imagined_result_are_dropped() -> None:
    text = (
        "<function=terminal><parameter=command>ls</parameter></function>\n"
        "EXECUTION RESULT of [terminal]:\nfile.txt\n"
        "<function=terminal><parameter=command>rm file.txt</parameter></function>"
    )

    assert calls(text) == [("terminal", {"command": "ls"})]


def test_wrappers_and_a_slipped_parameter_tag_are_tolerated() -> None:
    text = (
        "Let me look.</think>\n<tool_call>\n<function=terminal>\n"
        "<parameter=command=ls</parameter>\n</function>\n</tool_call>"
    )

    reply = parse_reply(text, TOOLS)

    assert reply.text == "Let me look."
    assert [(c.name, json.loads(c.arguments)) for c in reply.calls] == [
        ("terminal", {"command": "ls"})
    ]


@pytest.mark.parametrize(
    ("legacy", "current"), [("bash", "terminal"), ("execute_bash", "terminal")]
)
def test_legacy_tool_names_map_to_the_tools_offered(legacy: str, current: str) -> None:
    text = f"<function={legacy}><parameter=command>ls</parameter></function>"

    assert calls(text) == [(current, {"command": "ls"})]


def test_hermes_style_json_calls_are_read_too() -> None:
    reply = parse_reply(
        'Checking.\n<tool_call>\n{"name": "terminal", "arguments": {"command": "pwd"}}\n'
        "</tool_call>",
        TOOLS,
    )

    assert reply.text == "Checking."
    assert [(c.name, json.loads(c.arguments)) for c in reply.calls] == [
        ("terminal", {"command": "pwd"})
    ]


def test_a_wrong_call_is_still_a_call_so_the_agent_can_say_what_is_wrong() -> None:
    # An unknown tool, an unknown parameter, a bad number, unreadable JSON: all come back as
    # calls (the agent rejects them with its usual error), never as an exception or as text.
    assert calls("<function=nope><parameter=x>1</parameter></function>") == [("nope", {"x": "1"})]
    assert calls("<function=terminal><parameter=cmd>ls</parameter></function>") == [
        ("terminal", {"cmd": "ls"})
    ]
    assert calls("<function=terminal><parameter=timeout>soon</parameter></function>") == [
        ("terminal", {"timeout": "soon"})
    ]
    [broken] = parse_reply('<tool_call>{"name": "terminal", "arguments": {"command"', TOOLS).calls
    assert broken.name == "terminal"
    with pytest.raises(ValueError):
        json.loads(broken.arguments)


def test_a_reply_without_a_call_is_plain_text() -> None:
    reply = parse_reply("All done: hello.txt holds 'hi'.\n", TOOLS)

    assert reply.text == "All done: hello.txt holds 'hi'."
    assert reply.calls == []


def test_each_call_gets_its_own_id() -> None:
    text = "<function=terminal><parameter=command>a</parameter></function>" * 2

    first, second = parse_reply(text, TOOLS).calls

    assert first.id != second.id


def test_calls_mentioned_while_reasoning_are_not_run() -> None:
    reply = parse_reply(
        "<think>Maybe <function=terminal><parameter=command>rm -rf x</parameter></function>? "
        "No, just look.</think>\n<function=terminal><parameter=command>ls</parameter></function>",
        TOOLS,
    )

    assert [(c.name, json.loads(c.arguments)) for c in reply.calls] == [
        ("terminal", {"command": "ls"})
    ]
    assert "rm -rf" in reply.text  # the reasoning stays the reply's text
    assert parse_reply("<think>use <function=terminal></think>I am done.", TOOLS).calls == []
