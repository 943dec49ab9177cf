"""`LLMResponse` (one completion's result) and `LLMCallContext` (per-call request hints)."""

from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.message import Message
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from openhands.sdk.llm.usage import MetricsSnapshot


class LLMResponse(BaseModel):
    """The result of one completion: the assistant message plus what it cost."""

    model_config = ConfigDict(defer_build=True, arbitrary_types_allowed=True)

    message: Message
    id: str = ""
    cost: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    finish_reason: str | None = Field(
        default=None,
        description="Why the model stopped, in OpenAI's words: 'stop', 'length', 'tool_calls', "
        "'content_filter' (None: not reported).",
    )
    latency: float | None = Field(default=None, description="Seconds the call took.")
    # A MetricsSnapshot; `Any` to pydantic so that importing the SDK does not load its class.
    if TYPE_CHECKING:
        metrics: MetricsSnapshot | None = None
    else:
        metrics: Any = Field(
            default=None, description="The LLM's totals right after this call was counted."
        )
    raw_response: Any = Field(
        default=None,
        exclude=True,
        description="The provider's answer: litellm's response object, or the JSON body "
        "(a dict) from the native transport.",
    )


class LLMCallContext:
    """Per-conversation hints for one request: a prompt-cache key and a session id.

    `session_id` is sent as the `x-litellm-session-id` header (a litellm proxy groups calls
    by it); `prompt_cache_key` is passed to providers that take one (OpenAI).
    """

    # A plain class rather than a dataclass: generating one costs every SDK import time.
    __slots__ = ("prompt_cache_key", "session_id")

    def __init__(self, prompt_cache_key: str | None = None, session_id: str | None = None) -> None:
        self.prompt_cache_key = prompt_cache_key
        self.session_id = session_id

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LLMCallContext):
            return NotImplemented
        return (self.prompt_cache_key, self.session_id) == (
            other.prompt_cache_key,
            other.session_id,
        )

    def __hash__(self) -> int:
        return hash((self.prompt_cache_key, self.session_id))

    def __repr__(self) -> str:
        return (
            f"LLMCallContext(prompt_cache_key={self.prompt_cache_key!r}, "
            f"session_id={self.session_id!r})"
        )
