"""The OpenAI Responses API wire shapes the gateway's POST /v1/responses reads and answers.

Only what the gateway uses, written from OpenAI's public API reference (no `openai` import in
the server). Requests accept and ignore fields the gateway does not use (`tools`,
`reasoning`, `temperature`, ...): clients such as Codex send many. The gateway's own
additions start with `openhands_`, as in chat completions.
"""

from __future__ import annotations

from typing import Any, Literal

from openhands.agent_server.api.gateway_models import GatewayGoal, Progress
from openhands.sdk.conversation.goal import GoalStatus
from pydantic import BaseModel, ConfigDict, Field

_LENIENT = ConfigDict(extra="ignore")


class InputPart(BaseModel):
    """One part of an input message's content (`input_text`, `input_image`, ...)."""

    model_config = _LENIENT

    type: str
    text: str | None = None
    image_url: str | dict[str, Any] | None = None


class InputItem(BaseModel):
    """One input item: a message (`role` + `content`), or another item type (a function
    call, its output, a reasoning item...) that the gateway skips."""

    model_config = _LENIENT

    type: str | None = None
    role: Literal["user", "system", "developer", "assistant"] | None = None
    content: str | list[InputPart] | None = None


class ResponsesRequest(BaseModel):
    """POST /v1/responses."""

    model_config = _LENIENT

    model: str = Field(
        description="`openhands_<profile>` (GET /v1/models); `openhands_goal_<profile>` runs "
        "the request as a goal; `openhands_default` is the server's default LLM."
    )
    input: str | list[InputItem] = Field(
        description="The user's text, or input items (messages; other item types are skipped)."
    )
    instructions: str | None = Field(
        default=None, description="Added to a new conversation's system prompt."
    )
    previous_response_id: str | None = Field(
        default=None,
        max_length=200,
        description="Continue the conversation that answered this response (its id).",
    )
    stream: bool = False
    store: bool | None = Field(
        default=None, description="Accepted; the conversation is kept on the server either way."
    )
    metadata: dict[str, str] | None = None
    openhands_goal: GatewayGoal | bool | None = Field(
        default=None, description="Run the request as a goal: true, or the goal's options."
    )
    openhands_progress: Progress = Field(
        default="reasoning",
        description="Where a streamed answer shows what the agent does meanwhile: `reasoning` "
        "(a reasoning item's summary), `content` (before the answer), or `none`.",
    )


class OutputText(BaseModel):
    """The answer's text part."""

    type: Literal["output_text"] = "output_text"
    text: str
    annotations: list[Any] = Field(default_factory=list)


class OutputMessage(BaseModel):
    """The assistant's message."""

    type: Literal["message"] = "message"
    id: str
    status: Literal["in_progress", "completed", "incomplete"] = "completed"
    role: Literal["assistant"] = "assistant"
    content: list[OutputText] = Field(default_factory=list)


class SummaryText(BaseModel):
    """One line of a reasoning item's summary: what the agent did."""

    type: Literal["summary_text"] = "summary_text"
    text: str


class ReasoningItem(BaseModel):
    """What the agent did while it worked (streamed answers with `openhands_progress`
    `reasoning`)."""

    type: Literal["reasoning"] = "reasoning"
    id: str
    summary: list[SummaryText] = Field(default_factory=list)


class InputTokensDetails(BaseModel):
    """Cached input tokens (not tracked: 0)."""

    cached_tokens: int = 0


class OutputTokensDetails(BaseModel):
    """Reasoning tokens (not tracked: 0)."""

    reasoning_tokens: int = 0


class ResponseUsage(BaseModel):
    """Tokens this request used (agent and judge together)."""

    input_tokens: int = 0
    input_tokens_details: InputTokensDetails = Field(default_factory=InputTokensDetails)
    output_tokens: int = 0
    output_tokens_details: OutputTokensDetails = Field(default_factory=OutputTokensDetails)
    total_tokens: int = 0


class IncompleteDetails(BaseModel):
    """Why a response is `incomplete` (a run paused, a goal capped)."""

    reason: Literal["max_output_tokens", "content_filter"] = "max_output_tokens"


class Response(BaseModel):
    """A response object: the answer, or (while streaming) its state so far."""

    id: str
    object: Literal["response"] = "response"
    created_at: float
    completed_at: float | None = None
    status: Literal["in_progress", "completed", "incomplete", "failed"] = "completed"
    model: str
    output: list[OutputMessage | ReasoningItem] = Field(default_factory=list)
    instructions: str | None = None
    metadata: dict[str, str] | None = None
    previous_response_id: str | None = None
    parallel_tool_calls: bool = False
    tool_choice: Literal["none", "auto", "required"] = "none"
    tools: list[Any] = Field(default_factory=list)
    store: bool = True
    usage: ResponseUsage | None = None
    incomplete_details: IncompleteDetails | None = None
    error: dict[str, Any] | None = None
    openhands_goal: GoalStatus | None = Field(
        default=None, description="How the goal ended (goal requests only)."
    )
    openhands_conversation_id: str | None = Field(
        default=None, description="The conversation this response ran in."
    )
