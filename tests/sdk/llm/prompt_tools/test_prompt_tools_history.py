"""The history as a model without tool calling reads it: calls and results written as text."""

from __future__ import annotations

import json

from openhands.sdk.llm import ImageContent, Message, MessageToolCall, TextContent
from openhands.sdk.llm.prompt_tools.history import to_prompt_messages
from openhands.sdk.llm.prompt_tools.parse import parse_reply

TOOLS_TEXT = "# Calling tools\n(the tools)"
PIXEL = "data:image/png;base64,AAAA"


def text(role: str, value: str) -> Message:
    return Message(role=role, content=[TextContent(text=value)])  # type: ignore[arg-type]


def call(call_id: str, name: str, **arguments: object) -> MessageToolCall:
    return MessageToolCall(id=call_id, name=name, arguments=json.dumps(arguments))


def result(call_id: str, name: str, value: str) -> Message:
    return Message(role="tool", tool_call_id=call_id, name=name, content=[TextContent(text=value)])


def test_the_tools_section_follows_the_system_prompt() -> None:
    [system, user] = to_prompt_messages(
        [text("system", "Be brief."), text("user", "hi")], TOOLS_TEXT
    )

    assert system.role == "system"
    assert system.text == "Be brief.\n\n" + TOOLS_TEXT
    assert user.text == "hi"


def test_without_a_system_prompt_the_tools_section_comes_first() -> None:
    [system, user] = to_prompt_messages([text("user", "hi")], TOOLS_TEXT)

    assert (system.role, system.text) == ("system", TOOLS_TEXT)
    assert user.text == "hi"


def test_calls_and_results_become_text_the_model_can_follow() -> None:
    history = [
        text("system", "S"),
        text("user", "make it"),
        Message(
            role="assistant",
            content=[TextContent(text="Creating it.")],
            tool_calls=[call("c1", "file_editor", command="create", path="a.py", file_text="x\ny")],
        ),
        result("c1", "file_editor", "File created."),
    ]

    converted = to_prompt_messages(history, TOOLS_TEXT)

    assert [m.role for m in converted] == ["system", "user", "assistant", "user"]
    assistant, tool_result = converted[2], converted[3]
    assert assistant.tool_calls is None
    assert assistant.text == (
        "Creating it.\n\n<function=file_editor>\n<parameter=command>create</parameter>\n"
        "<parameter=path>a.py</parameter>\n<parameter=file_text>\nx\ny\n</parameter>\n</function>"
    )
    assert tool_result.text == "EXECUTION RESULT of [file_editor]:\nFile created."
    assert tool_result.tool_call_id is None


def test_a_rendered_call_reads_back_as_the_same_call() -> None:
    original = call("c1", "file_editor", command="create", path="a.py", file_text="  a\n\nb")
    history = [text("user", "u"), Message(role="assistant", tool_calls=[original])]

    written = to_prompt_messages(history, TOOLS_TEXT)[-1].text
    [again] = parse_reply(written, []).calls

    assert (again.name, json.loads(again.arguments)) == (
        "file_editor",
        json.loads(original.arguments),
    )


def test_results_of_one_reply_and_a_following_user_message_make_one_user_turn() -> None:
    history = [
        text("user", "two things"),
        Message(
            role="assistant",
            tool_calls=[call("a", "terminal", command="ls"), call("b", "terminal", command="pwd")],
        ),
        result("a", "terminal", "f.txt"),
        result("b", "terminal", "/w"),
        text("user", "and then?"),
    ]

    converted = to_prompt_messages(history, TOOLS_TEXT)

    assert [m.role for m in converted] == ["system", "user", "assistant", "user"]
    assert converted[2].text.count("<function=terminal>") == 2
    assert converted[3].text == (
        "EXECUTION RESULT of [terminal]:\nf.txt\n\nEXECUTION RESULT of [terminal]:\n/w\n\nand then?"
    )


def test_a_result_keeps_its_images() -> None:
    shot = Message(
        role="tool",
        tool_call_id="c1",
        name="browser",
        content=[TextContent(text="page shown"), ImageContent(image_urls=[PIXEL])],
    )

    [_, converted] = to_prompt_messages([shot], TOOLS_TEXT)

    assert converted.role == "user"
    assert converted.contains_image
    assert converted.text == "EXECUTION RESULT of [browser]:\npage shown"


def test_a_malformed_call_in_the_history_is_written_as_it_was_sent() -> None:
    broken = MessageToolCall(id="c1", name="terminal", arguments='{"command": "ls"')

    [_, converted] = to_prompt_messages(
        [Message(role="assistant", tool_calls=[broken])], TOOLS_TEXT
    )

    assert converted.text == '<function=terminal>\n{"command": "ls"\n</function>'


def test_the_messages_given_are_not_changed() -> None:
    assistant = Message(role="assistant", tool_calls=[call("c1", "terminal", command="ls")])
    history = [text("system", "S"), assistant, result("c1", "terminal", "out")]
    before = [m.model_dump() for m in history]

    to_prompt_messages(history, TOOLS_TEXT)

    assert [m.model_dump() for m in history] == before
