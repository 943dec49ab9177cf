"""Messages exchanged with an LLM, in a provider-neutral shape."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant", "tool"]

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A UTF-16 surrogate on its own: how undecodable bytes and bad JSON escapes reach a `str`."""


def scrub_surrogates(text: str) -> str:
    """`text` with lone surrogates (undecodable bytes in OS strings) replaced by U+FFFD."""
    return LONE_SURROGATE.sub("\ufffd", text)


class TextContent(BaseModel):
    """A piece of plain text inside a message."""

    model_config = ConfigDict(defer_build=True)

    type: Literal["text"] = "text"
    text: str


class ImageContent(BaseModel):
    """One or more images (URLs or data URLs) inside a message."""

    model_config = ConfigDict(defer_build=True)

    type: Literal["image"] = "image"
    image_urls: list[str]


Content = TextContent | ImageContent


class MessageToolCall(BaseModel):
    """A tool call requested by the assistant: the tool name and its JSON arguments."""

    model_config = ConfigDict(defer_build=True)

    id: str
    name: str
    arguments: str = Field(default="{}", description="The arguments as a JSON object string.")


class Message(BaseModel):
    """A chat message: a role, content parts, and (for the assistant) tool calls."""

    model_config = ConfigDict(defer_build=True)

    role: Role
    content: list[TextContent | ImageContent] = Field(default_factory=list)
    tool_calls: list[MessageToolCall] | None = None
    tool_call_id: str | None = Field(
        default=None, description="For role 'tool': the id of the call this message answers."
    )
    name: str | None = Field(default=None, description="For role 'tool': the tool's name.")

    @property
    def text(self) -> str:
        """All text parts joined by newlines (images are skipped)."""
        return "\n".join(part.text for part in self.content if isinstance(part, TextContent))

    def to_chat_dict(self) -> dict[str, Any]:
        """Render in the OpenAI chat-completions shape that litellm accepts."""
        content: str | list[dict[str, Any]]
        if any(isinstance(part, ImageContent) for part in self.content):
            content = []
            for part in self.content:
                if isinstance(part, TextContent):
                    content.append({"type": "text", "text": part.text})
                else:
                    content.extend(
                        {"type": "image_url", "image_url": {"url": url}} for url in part.image_urls
                    )
        else:
            content = self.text
        out: dict[str, Any] = {"role": self.role, "content": content}
        if self.tool_calls:
            out["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
        if self.role == "tool":
            out["tool_call_id"] = self.tool_call_id
            if self.name:
                out["name"] = self.name
        return out


def text_message(role: Role, text: str) -> Message:
    """Build a message holding a single text part."""
    return Message(role=role, content=[TextContent(text=text)])
