"""`LLMStreamChunk`: one streamed piece of a reply, in the OpenAI `chat.completion.chunk` shape.

`on_token` callbacks read it as they read litellm's `ModelResponseStream`:
`chunk.choices[0].delta.content`, `.reasoning_content`, `.tool_calls[i].function.arguments`.
Fields a server adds beyond these are kept (`extra="allow"`). A delta's `reasoning` (newer
vLLM, GLM) is offered as `reasoning_content`, as litellm does.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class FunctionDelta(BaseModel):
    """A piece of a tool call's function: its name (first piece) and arguments text."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    name: str | None = None
    arguments: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _arguments_text(cls, data: Any) -> Any:
        # Some servers send the arguments as a JSON object rather than its text.
        if isinstance(data, dict) and isinstance(data.get("arguments"), dict | list):
            return {**data, "arguments": json.dumps(data["arguments"])}
        return data


class ToolCallDelta(BaseModel):
    """A piece of one tool call; pieces with the same `index` make one call."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    index: int = 0
    id: str | None = None
    type: str | None = None
    function: FunctionDelta = Field(default_factory=FunctionDelta)

    @model_validator(mode="before")
    @classmethod
    def _no_null_function(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("function") is None:
            return {**data, "function": {}}
        return data


class Delta(BaseModel):
    """What one chunk adds to the reply."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    role: str | None = None
    content: str | None = None
    reasoning_content: str | None = None
    tool_calls: list[ToolCallDelta] | None = None

    @model_validator(mode="before")
    @classmethod
    def _reasoning_alias(cls, data: Any) -> Any:
        if isinstance(data, dict) and "reasoning" in data and "reasoning_content" not in data:
            data = dict(data)
            data["reasoning_content"] = data.pop("reasoning")
        return data


class StreamChoice(BaseModel):
    """One choice of a chunk (servers send one)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    index: int = 0
    delta: Delta = Field(default_factory=Delta)
    finish_reason: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_null_delta(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("delta") is None:
            return {**data, "delta": {}}
        return data


class LLMStreamChunk(BaseModel):
    """One `chat.completion.chunk` of a streamed reply (what `on_token` receives)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    id: str | None = None
    object: str = "chat.completion.chunk"
    created: int | None = None
    model: str | None = None
    choices: list[StreamChoice] = Field(default_factory=list)
    usage: dict[str, Any] | None = None


__all__ = ["Delta", "FunctionDelta", "LLMStreamChunk", "StreamChoice", "ToolCallDelta"]
