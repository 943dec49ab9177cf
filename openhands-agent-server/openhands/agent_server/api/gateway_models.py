"""The OpenAI Chat Completions wire shapes the gateway (/v1) reads and answers.

Only what the gateway uses, written from the public API reference (no `openai` import in the
server). Requests accept and ignore fields the gateway does not use (`temperature`, `tools`,
...): an OpenAI client sends many. The gateway's own additions start with `openhands_`.
"""

from __future__ import annotations

from typing import Any, Literal

from openhands.sdk.conversation.goal import GoalLimits, GoalStatus
from openhands.sdk.llm.llm_profile_store import PROFILE_NAME
from pydantic import BaseModel, ConfigDict, Field, field_validator

_LENIENT = ConfigDict(extra="ignore")

Progress = Literal["reasoning", "content", "none"]


class ImageURL(BaseModel):
    """`{"url": ...}` of an `image_url` content part."""

    model_config = _LENIENT

    url: str


class ContentPart(BaseModel):
    """One part of a message's content: `{"type": "text", "text"}` or an `image_url`."""

    model_config = _LENIENT

    type: str
    text: str | None = None
    image_url: ImageURL | str | None = None


class ChatMessage(BaseModel):
    """One message of the conversation the client sends."""

    model_config = _LENIENT

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[ContentPart] | None = None


class StreamOptions(BaseModel):
    """`stream_options`: `include_usage` adds a last chunk with the token usage."""

    model_config = _LENIENT

    include_usage: bool = False


class GatewayGoal(GoalLimits):
    """`openhands_goal`: answer only once a judge (and `verify`) finds the objective done.

    The limits are the SDK's `GoalLimits` (`max_iterations` default 10, `max_cost`,
    `time_limit`; 0 or null: unlimited).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    objective: str | None = Field(
        default=None,
        description="What must be true when done; default: the text of the last user message.",
    )
    verify: str | None = Field(
        default=None,
        description="Shell command run in the workspace after each round (e.g. 'pytest -q'); "
        "the goal cannot complete unless it exits 0.",
    )
    judge_profile: str | None = Field(
        default=None,
        pattern=PROFILE_NAME.pattern,
        description="A stored LLM profile to judge with; default: a copy of the agent's LLM.",
    )

    @field_validator("objective", "verify")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must not be blank (leave it out for the default)")
        return value


class ChatCompletionRequest(BaseModel):
    """POST /v1/chat/completions."""

    model_config = _LENIENT

    model: str = Field(
        description="`openhands_<profile>` (GET /v1/models); `openhands_goal_<profile>` runs "
        "the request as a goal with default limits."
    )
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    openhands_goal: GatewayGoal | bool | None = Field(
        default=None,
        description="Run the request as a goal: true, or the goal's options. The answer comes "
        "once the judge (and verify) agree, or a limit is reached.",
    )
    openhands_progress: Progress = Field(
        default="reasoning",
        description="Where a streamed answer shows what the agent does meanwhile: "
        "`reasoning` (delta.reasoning_content), `content` (before the answer), or `none`.",
    )


class Usage(BaseModel):
    """Tokens this request used (agent and judge together)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class AnswerMessage(BaseModel):
    """The assistant's message in a completion."""

    role: Literal["assistant"] = "assistant"
    content: str | None = None


class Choice(BaseModel):
    """The one choice a completion has."""

    index: int = 0
    message: AnswerMessage
    finish_reason: str | None = "stop"


class ChatCompletion(BaseModel):
    """The answer of a request without `stream`."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage
    openhands_goal: GoalStatus | None = Field(
        default=None, description="How the goal ended (goal requests only)."
    )


class Delta(BaseModel):
    """What a stream chunk adds to the message."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["assistant"] | None = None
    content: str | None = None
    reasoning_content: str | None = None


class ChunkChoice(BaseModel):
    """The one choice of a stream chunk."""

    index: int = 0
    delta: Delta
    finish_reason: str | None = None


class ChatCompletionChunk(BaseModel):
    """One server-sent event of a streamed answer."""

    id: str
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: Usage | None = None
    openhands_goal: GoalStatus | None = None


class ModelCard(BaseModel):
    """One entry of GET /v1/models."""

    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "openhands"


class ModelList(BaseModel):
    """GET /v1/models."""

    object: Literal["list"] = "list"
    data: list[ModelCard]


def sse(payload: BaseModel | dict[str, Any]) -> bytes:
    """One server-sent event carrying `payload` as JSON (unset fields left out)."""
    if isinstance(payload, BaseModel):
        data = payload.model_dump_json(exclude_none=True)
    else:
        import json

        data = json.dumps(payload, separators=(",", ":"))
    return f"data: {data}\n\n".encode()
