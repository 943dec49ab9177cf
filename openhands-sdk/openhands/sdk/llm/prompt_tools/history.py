"""A conversation's messages rewritten for a model that reads tools from the prompt.

- The tools section (`describe.tools_section`) is added to the first system message as its
  last text part (a system message holding only it is put first when there is none).
- An assistant message's tool calls become text after its own: each call in tag form.
- A tool result becomes a user message starting with `EXECUTION RESULT of [name]:` (its
  images kept, so a vision model still sees a screenshot).
- Consecutive user messages are merged into one: several results of one reply, or a result
  followed by a user's message, would otherwise break the chat templates of local models
  that insist on user and assistant taking turns.

Only copies are changed; the messages given are left as they were.
"""

from __future__ import annotations

from collections.abc import Sequence

from openhands.sdk.llm.message import ImageContent, Message, TextContent
from openhands.sdk.llm.prompt_tools.grammar import render_call, result_header


def to_prompt_messages(messages: Sequence[Message], tools_text: str) -> list[Message]:
    """`messages` as a model without tool calling reads them (see the module)."""
    out: list[Message] = []
    instructed = False
    for message in messages:
        if message.role == "system" and not instructed:
            converted = _with_tools_section(message, tools_text)
            instructed = True
        elif message.role == "assistant" and message.tool_calls:
            converted = _calls_as_text(message)
        elif message.role == "tool":
            converted = _result_as_user(message)
        else:
            converted = message
        if out and converted.role == "user" and out[-1].role == "user":
            out[-1] = _merged(out[-1], converted)
        else:
            out.append(converted)
    if not instructed:
        out.insert(0, Message(role="system", content=[TextContent(text=tools_text.lstrip())]))
    return out


def _with_tools_section(message: Message, tools_text: str) -> Message:
    """The system message with the tools section as its last text part (its own parts, e.g.
    the static prompt and the per-conversation context, stay as they were)."""
    if not message.text.strip():
        return message.model_copy(update={"content": [TextContent(text=tools_text.lstrip())]})
    section = TextContent(text="\n" + tools_text.lstrip())
    return message.model_copy(update={"content": [*message.content, section]})


def _calls_as_text(message: Message) -> Message:
    calls = "\n".join(render_call(call.name, call.arguments) for call in message.tool_calls or [])
    thought = message.text.strip()
    text = f"{thought}\n\n{calls}" if thought else calls
    images = [part for part in message.content if isinstance(part, ImageContent)]
    return message.model_copy(
        update={"content": [TextContent(text=text), *images], "tool_calls": None}
    )


def _result_as_user(message: Message) -> Message:
    header = result_header(message.name or "tool")
    content = list(message.content)
    for index, part in enumerate(content):
        if isinstance(part, TextContent):
            content[index] = TextContent(text=f"{header}\n{part.text}")
            break
    else:
        content.insert(0, TextContent(text=header))
    return Message(role="user", content=content)


def _merged(first: Message, second: Message) -> Message:
    """One user message holding both; the texts are separated by a blank line."""
    content = list(first.content)
    for part in second.content:
        if isinstance(part, TextContent) and any(isinstance(p, TextContent) for p in content):
            content.append(TextContent(text=f"\n{part.text}"))
        else:
            content.append(part)
    return first.model_copy(update={"content": content})


__all__ = ["to_prompt_messages"]
