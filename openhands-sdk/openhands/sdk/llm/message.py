"""Messages exchanged with an LLM, in a provider-neutral shape."""

import json
import re
from collections.abc import Sequence
from typing import Any, Literal

from openhands.sdk.errors import InvalidArgumentError
from pydantic import BaseModel, ConfigDict, Field, field_validator

Role = Literal["system", "user", "assistant", "tool"]

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A UTF-16 surrogate on its own: how undecodable bytes and bad JSON escapes reach a `str`."""


def scrub_surrogates(text: str) -> str:
    """`text` with lone surrogates (undecodable bytes in OS strings) replaced by U+FFFD."""
    return LONE_SURROGATE.sub("\ufffd", text)


def _empty(value: Any) -> bool:
    return not value


class TextContent(BaseModel):
    """A piece of plain text inside a message."""

    model_config = ConfigDict(defer_build=True)

    type: Literal["text"] = "text"
    text: str
    cache_prompt: bool = Field(
        default=False,
        description="Mark this part as a prompt-cache breakpoint when it is sent as a list "
        "part with `cache_enabled` (left out of dumps while False).",
        exclude_if=_empty,
    )

    def to_llm_dict(self) -> dict[str, Any]:
        """This part as a chat-completions content item (with `cache_control` when marked)."""
        item: dict[str, Any] = {"type": "text", "text": self.text}
        if self.cache_prompt:
            item["cache_control"] = {"type": "ephemeral"}
        return item


class ImageContent(BaseModel):
    """One or more images (URLs or data URLs) inside a message."""

    model_config = ConfigDict(defer_build=True)

    type: Literal["image"] = "image"
    image_urls: list[str]
    cache_prompt: bool = Field(
        default=False,
        description="Mark the last image as a prompt-cache breakpoint (see TextContent).",
        exclude_if=_empty,
    )

    def to_llm_dict(self) -> list[dict[str, Any]]:
        """One chat-completions `image_url` item per URL (the last marked when asked)."""
        items: list[dict[str, Any]] = [
            {"type": "image_url", "image_url": {"url": url}} for url in self.image_urls
        ]
        if self.cache_prompt and items:
            items[-1]["cache_control"] = {"type": "ephemeral"}
        return items


Content = TextContent | ImageContent


class ThinkingBlock(BaseModel):
    """A reasoning block an Anthropic model returned (extended thinking).

    Anthropic requires it to be sent back, unchanged, with the assistant turn it came with.
    """

    model_config = ConfigDict(defer_build=True)

    type: Literal["thinking"] = "thinking"
    thinking: str = Field(description="The model's reasoning text.")
    signature: str | None = Field(default=None, description="The provider's signature.")


class RedactedThinkingBlock(BaseModel):
    """A reasoning block the provider returned encrypted (sent back as is)."""

    model_config = ConfigDict(defer_build=True)

    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str = Field(description="The encrypted reasoning.")


class ReasoningItemModel(BaseModel):
    """A reasoning item of the OpenAI Responses API (never shown or logged when encrypted)."""

    model_config = ConfigDict(defer_build=True)

    id: str | None = None
    summary: list[str] = Field(default_factory=list)
    content: list[str] | None = None
    encrypted_content: str | None = None
    status: str | None = None


def _arguments_text(arguments: Any) -> str:
    """Tool-call arguments as the JSON object text the APIs carry (a dict is serialized)."""
    if isinstance(arguments, str):
        return arguments or "{}"
    if arguments is None:
        return "{}"
    return json.dumps(arguments)


class MessageToolCall(BaseModel):
    """A tool call requested by the assistant: the tool name and its JSON arguments."""

    model_config = ConfigDict(defer_build=True)

    id: str
    name: str
    arguments: str = Field(default="{}", description="The arguments as a JSON object string.")
    origin: Literal["completion", "responses"] = Field(
        default="completion", description="Which API produced the call."
    )
    responses_item_id: str | None = Field(
        default=None,
        description="The Responses API item id, echoed back unchanged.",
        exclude_if=_empty,
    )

    @classmethod
    def from_chat_tool_call(cls, tool_call: Any) -> "MessageToolCall":
        """The call from a Chat Completions tool call: litellm's `ChatCompletionMessageToolCall`
        (or any object with `id`, `type` and `function.name` / `function.arguments`), or the
        same as a dict. ValueError for a call that is not a function call or has no name."""

        def part(value: Any, name: str) -> Any:
            return value.get(name) if isinstance(value, dict) else getattr(value, name, None)

        kind = part(tool_call, "type") or "function"
        function = part(tool_call, "function")
        if kind != "function":
            raise InvalidArgumentError(
                f"Unsupported tool call type {kind!r}: only 'function' tool calls are read"
            )
        if function is None:
            raise InvalidArgumentError(
                f"tool_call.function is None: tool call {part(tool_call, 'id')!r} names no function"
            )
        name = part(function, "name")
        if not name:
            raise InvalidArgumentError(
                f"tool_call.function.name is None: tool call {part(tool_call, 'id')!r} has no "
                "function name"
            )
        return cls(
            id=str(part(tool_call, "id") or ""),
            name=str(name),
            arguments=_arguments_text(part(function, "arguments")),
            origin="completion",
        )

    @classmethod
    def from_responses_function_call(cls, item: Any) -> "MessageToolCall":
        """The call from a Responses API `function_call` output item (the openai or litellm
        model, any object with `call_id`, `id`, `name` and `arguments`, or the same as a dict).

        Its `call_id` (or, lacking one, its `id`) is the call's id; the item `id` is kept as
        `responses_item_id` so the call is replayed unchanged. ValueError for an item with
        neither id, or without a name.
        """

        def part(name: str) -> Any:
            return item.get(name) if isinstance(item, dict) else getattr(item, name, None)

        call_id, item_id, name = part("call_id"), part("id"), part("name")
        if not call_id and not item_id:
            raise InvalidArgumentError("Responses function_call item is missing call_id/id")
        if not name:
            raise InvalidArgumentError(
                f"Responses function_call item {call_id or item_id!r} is missing name"
            )
        return cls(
            id=str(call_id or item_id),
            name=str(name),
            arguments=_arguments_text(part("arguments")),
            origin="responses",
            responses_item_id=str(item_id) if item_id else None,
        )

    def to_chat_dict(self) -> dict[str, Any]:
        """The call in the Chat Completions `tool_calls` shape."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    def to_responses_dict(self) -> dict[str, Any]:
        """The call as a Responses API `function_call` input item."""
        item_id = self.responses_item_id or (
            self.id if self.id.startswith("fc") else f"fc_{self.id}"
        )
        return {
            "type": "function_call",
            "id": item_id,
            "call_id": self.id,
            "name": self.name,
            "arguments": _arguments_text(self.arguments),
        }


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
    reasoning_content: str | None = Field(
        default=None,
        description="The reasoning a reasoning model gave with this reply.",
        exclude_if=_empty,
    )
    thinking_blocks: list[ThinkingBlock | RedactedThinkingBlock] = Field(
        default_factory=list,
        description="Anthropic thinking blocks of this reply (sent back with it).",
        exclude_if=_empty,
    )
    responses_reasoning_item: ReasoningItemModel | None = Field(
        default=None,
        description="The OpenAI Responses reasoning item of this reply.",
        exclude_if=_empty,
    )

    @field_validator("content", mode="before")
    @classmethod
    def _coerce_content(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [TextContent(text=value)] if value else []
        return value

    @property
    def text(self) -> str:
        """All text parts joined by newlines (images are skipped)."""
        return "\n".join(part.text for part in self.content if isinstance(part, TextContent))

    @property
    def contains_image(self) -> bool:
        """True when any content part is an image."""
        return any(isinstance(part, ImageContent) for part in self.content)

    def to_chat_dict(
        self,
        *,
        vision_enabled: bool = False,
        force_string_serializer: bool = False,
        send_reasoning_content: bool = False,
        cache_enabled: bool = False,
        function_calling_enabled: bool = False,
    ) -> dict[str, Any]:
        """Render in the OpenAI chat-completions shape that litellm accepts.

        The content is a list of parts when any of `cache_enabled`, `vision_enabled` or
        `function_calling_enabled` is set (images only with `vision_enabled`; a part marked
        `cache_prompt` carries `cache_control` only with `cache_enabled`), else one string
        (`force_string_serializer` always gives the string, for providers that refuse lists).
        An assistant turn with tool calls leaves out empty text (and `content` when nothing
        is left).
        """
        content: str | list[dict[str, Any]]
        as_list = not force_string_serializer and (
            cache_enabled or vision_enabled or function_calling_enabled
        )
        if as_list:
            content = []
            for part in self.content:
                if isinstance(part, ImageContent):
                    if vision_enabled:
                        content.extend(_uncached(part.to_llm_dict(), keep=cache_enabled))
                else:
                    content.extend(_uncached([part.to_llm_dict()], keep=cache_enabled))
        else:
            content = self.text
        out: dict[str, Any] = {"role": self.role, "content": content}
        if self.role == "assistant" and self.thinking_blocks and not force_string_serializer:
            out["thinking_blocks"] = [block.model_dump() for block in self.thinking_blocks]
        if self.tool_calls:
            out["tool_calls"] = [call.to_chat_dict() for call in self.tool_calls]
            if self.role == "assistant":
                _drop_empty_text(out)
        if self.role == "tool":
            out["tool_call_id"] = self.tool_call_id
            if self.name:
                out["name"] = self.name
        if send_reasoning_content and self.reasoning_content:
            out["reasoning_content"] = self.reasoning_content
        return out

    def to_responses_value(self, *, vision_enabled: bool = True) -> str | list[dict[str, Any]]:
        """For the Responses API: the instructions text (system) or the input items."""
        if self.role == "system":
            return "\n".join(
                part.text for part in self.content if isinstance(part, TextContent) and part.text
            )
        return self.to_responses_dict(vision_enabled=vision_enabled)

    def to_responses_dict(self, *, vision_enabled: bool = True) -> list[dict[str, Any]]:
        """This message as Responses API input items."""
        if self.role == "tool":
            return [
                {
                    "type": "function_call_output",
                    "call_id": self.tool_call_id or "",
                    "output": self.text,
                }
            ]
        items: list[dict[str, Any]] = []
        if self.role == "assistant":
            reasoning = self.responses_reasoning_item
            if reasoning is not None and reasoning.id:
                item: dict[str, Any] = {
                    "type": "reasoning",
                    "id": reasoning.id,
                    "summary": [{"type": "summary_text", "text": s} for s in reasoning.summary],
                }
                if reasoning.encrypted_content:
                    item["encrypted_content"] = reasoning.encrypted_content
                items.append(item)
            if self.text:
                items.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": self.text}],
                    }
                )
            items.extend(call.to_responses_dict() for call in self.tool_calls or [])
            return items
        parts: list[dict[str, Any]] = []
        for part in self.content:
            if isinstance(part, TextContent):
                parts.append({"type": "input_text", "text": part.text})
            elif vision_enabled:
                parts.extend({"type": "input_image", "image_url": url} for url in part.image_urls)
        return [{"type": "message", "role": self.role, "content": parts}]

    @classmethod
    def from_llm_chat_message(cls, message: Any) -> "Message":
        """Our message for a litellm chat-completions message (reasoning and thinking kept)."""
        content = getattr(message, "content", None)
        given = getattr(message, "tool_calls", None) or []
        calls = [
            MessageToolCall(
                id=getattr(call, "id", None) or f"call_{index}",
                name=call.function.name or "",
                arguments=_arguments_text(call.function.arguments),
            )
            for index, call in enumerate(given)
            if getattr(call, "type", "function") in (None, "function")
        ]
        if given and not calls:
            kinds = sorted({str(getattr(call, "type", None)) for call in given})
            raise InvalidArgumentError(
                f"The reply has tool_calls, but none are of type 'function' (got {kinds}); "
                "only function tools are supported"
            )
        blocks: list[ThinkingBlock | RedactedThinkingBlock] = []
        for block in getattr(message, "thinking_blocks", None) or []:
            data = block if isinstance(block, dict) else getattr(block, "__dict__", {})
            if data.get("type") == "redacted_thinking":
                blocks.append(RedactedThinkingBlock(data=str(data.get("data", ""))))
            elif data.get("type") == "thinking":
                blocks.append(
                    ThinkingBlock(
                        thinking=str(data.get("thinking", "")), signature=data.get("signature")
                    )
                )
        reasoning = getattr(message, "reasoning_content", None)
        return cls(
            role="assistant",
            content=[TextContent(text=content)] if isinstance(content, str) and content else [],
            tool_calls=calls or None,
            reasoning_content=reasoning if isinstance(reasoning, str) and reasoning else None,
            thinking_blocks=blocks,
        )


def text_message(role: Role, text: str) -> Message:
    """Build a message holding a single text part."""
    return Message(role=role, content=[TextContent(text=text)])


def content_to_str(contents: Sequence[TextContent | ImageContent]) -> list[str]:
    """One display string per content part: the text, or `[Image: N URLs]` for images."""
    return [
        part.text if isinstance(part, TextContent) else f"[Image: {len(part.image_urls)} URLs]"
        for part in contents
    ]


def _uncached(items: list[dict[str, Any]], *, keep: bool) -> list[dict[str, Any]]:
    """`items` without their `cache_control` unless prompt caching is on."""
    if keep:
        return items
    for item in items:
        item.pop("cache_control", None)
    return items


def _drop_empty_text(message: dict[str, Any]) -> None:
    """Leave out blank text beside tool calls, and `content` when nothing is left (some
    providers refuse an empty content next to tool calls; the reference does the same)."""
    content = message.get("content")
    if isinstance(content, str):
        if not content.strip():
            del message["content"]
        return
    if isinstance(content, list):
        kept = [
            item
            for item in content
            if not (item.get("type") == "text" and not str(item.get("text", "")).strip())
        ]
        if kept:
            message["content"] = kept
        else:
            del message["content"]
