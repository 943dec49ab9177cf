"""`LLM`: one configured model, called through litellm (imported lazily)."""

from __future__ import annotations

import functools
import logging
import os
from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.errors import (
    LLMAuthenticationError,
    LLMBadRequestError,
    LLMConfigurationError,
    LLMError,
    LLMResponseError,
    LLMTransientError,
)
from openhands.sdk.llm.message import ImageContent, Message, MessageToolCall, TextContent
from openhands.sdk.llm.metrics import Metrics
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    SerializationInfo,
    field_serializer,
    model_validator,
)

if TYPE_CHECKING:
    from tenacity import RetryCallState, Retrying

logger = logging.getLogger(__name__)

ENV_HELP = (
    "Set LLM_MODEL (any litellm model, e.g. 'openai/gpt-4o-mini'), LLM_API_KEY and, for a "
    "local OpenAI-compatible server, LLM_BASE_URL (e.g. 'http://127.0.0.1:8080/v1')."
)


MISSING_KEY_MARKERS = ("Missing credentials", "api_key client option must be set")
"""What providers' clients say when they find no API key (litellm wraps it as a 500)."""


class LLMResponse(BaseModel):
    """The result of one completion: the assistant message plus what it cost."""

    model_config = ConfigDict(defer_build=True)

    message: Message
    id: str = ""
    cost: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class LLM(BaseModel):
    """A language model reachable through litellm, with retries and cost metrics.

    litellm is imported on the first real completion, never at import time.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    model: str = Field(min_length=1, description="litellm model name, e.g. 'openai/gpt-4o-mini'.")
    api_key: SecretStr | None = Field(default=None, description="Provider key; never logged.")
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint URL.")
    usage_id: str = Field(default="default", description="Name under which metrics are kept.")
    temperature: float | None = Field(
        default=0.0, ge=0.0, le=2.0, description="Sampling temperature; None sends none."
    )
    max_output_tokens: int | None = Field(
        default=None, ge=1, description="Cap on tokens per reply; None means the provider's."
    )
    # Bounded so that an absurd spec fails validation instead of overflowing the OS timers
    # (OverflowError) or sleeping for years in a thread no pause reaches.
    num_retries: int = Field(
        default=4, ge=0, le=100, description="Retries on 429, 5xx, timeouts and connection errors."
    )
    retry_min_wait: float = Field(
        default=1.0, ge=0.0, le=3600, description="First backoff, seconds (<= 1 hour)."
    )
    retry_max_wait: float = Field(
        default=20.0, ge=0.0, le=3600, description="Largest backoff, seconds (<= 1 hour)."
    )
    timeout: float | None = Field(
        default=120.0, gt=0, le=86_400, description="Seconds per HTTP request (<= 1 day)."
    )
    stream: bool = Field(default=False, description="Stream tokens (the judge never streams).")

    _metrics: Metrics = PrivateAttr()

    def model_post_init(self, __context: Any) -> None:
        """Start with empty metrics under this LLM's `usage_id`."""
        self._metrics = Metrics(usage_id=self.usage_id)

    @model_validator(mode="after")
    def _check_retry_waits(self) -> LLM:
        if self.retry_max_wait < self.retry_min_wait:
            raise ValueError(
                f"retry_max_wait ({self.retry_max_wait}) must be >= retry_min_wait "
                f"({self.retry_min_wait})"
            )
        return self

    @field_serializer("api_key", when_used="always")
    def _serialize_api_key(self, value: SecretStr | None, info: SerializationInfo) -> Any:
        # Secrets never reach disk or logs: JSON dumps drop the key unless the caller asks for
        # it explicitly with context={"expose_secrets": True} (e.g. sending a spec to a server).
        if value is None:
            return None
        if isinstance(info.context, dict) and info.context.get("expose_secrets"):
            return value.get_secret_value()
        return None if info.mode == "json" else value

    @classmethod
    def from_env(cls, usage_id: str = "default", **overrides: Any) -> LLM:
        """Build an LLM from LLM_MODEL, LLM_API_KEY and LLM_BASE_URL, or say what to set."""
        model = os.environ.get("LLM_MODEL", "").strip()
        if not model:
            raise LLMConfigurationError(f"No LLM configured. {ENV_HELP}")
        api_key = os.environ.get("LLM_API_KEY") or None
        base_url = os.environ.get("LLM_BASE_URL") or None
        return cls(
            model=model,
            api_key=SecretStr(api_key) if api_key else None,
            base_url=base_url,
            usage_id=usage_id,
            **overrides,
        )

    @property
    def metrics(self) -> Metrics:
        """Cost and token usage accumulated by this LLM object."""
        return self._metrics

    def copy_for(self, usage_id: str, **changes: Any) -> LLM:
        """A copy with another `usage_id` and fresh metrics (e.g. a judge from an agent LLM)."""
        data = {name: getattr(self, name) for name in type(self).model_fields}
        data.update(changes, usage_id=usage_id)
        return type(self)(**data)

    def completion(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        *,
        stream: bool | None = None,
    ) -> LLMResponse:
        """Ask the model for the next assistant message (tool calls included)."""
        if not messages:
            raise ValueError("completion() needs at least one message")
        use_stream = self.stream if stream is None else stream
        response = self._complete(messages, tools or None, use_stream)
        self._metrics.add(
            cost=response.cost,
            prompt_tokens=response.prompt_tokens,
            completion_tokens=response.completion_tokens,
        )
        return response

    # -- transport ---------------------------------------------------------------------------

    def _complete(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, stream: bool
    ) -> LLMResponse:
        """One completion with retries; subclasses (TestLLM) replace this."""
        litellm = _import_litellm()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_chat_dict() for m in messages],
            "num_retries": 0,
            "drop_params": True,
        }
        if tools:
            kwargs["tools"] = tools
            if _litellm_knows_mcp_skip_flag():
                # Our tools are plain functions. Without this flag, litellm >= 1.80 imports its
                # MCP gateway (which needs the optional `mcp` package) for any call with tools.
                kwargs["_skip_mcp_handler"] = True
        if self.api_key is not None:
            kwargs["api_key"] = self.api_key.get_secret_value()
        if self.base_url:
            kwargs["base_url"] = self.base_url
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self.max_output_tokens is not None:
            kwargs["max_tokens"] = self.max_output_tokens
        if self.timeout is not None:
            kwargs["timeout"] = self.timeout

        def attempt() -> LLMResponse:
            try:
                if stream:
                    # include_usage makes OpenAI-style providers report tokens in the last chunk.
                    chunks = list(
                        litellm.completion(
                            stream=True, stream_options={"include_usage": True}, **kwargs
                        )
                    )
                    raw = litellm.stream_chunk_builder(chunks, messages=kwargs["messages"])
                else:
                    raw = litellm.completion(**kwargs)
                return self._parse(raw, litellm)
            except LLMError:
                raise
            except Exception as exc:  # litellm raises many exception types; classify them
                raise self._classify(exc, litellm) from exc

        return self._retrying()(attempt)

    def _retrying(self) -> Retrying:
        """The retry policy: only `LLMTransientError` is retried, `num_retries` times at most.

        Backoff is exponential from `retry_min_wait`, capped at `retry_max_wait`, with "equal
        jitter": half the step is fixed and half is random, so waits stay within the bounds
        and parallel callers spread out.
        """
        import tenacity  # lazily, like litellm: only a real completion needs it

        half_min, half_max = self.retry_min_wait / 2, self.retry_max_wait / 2
        return tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(LLMTransientError),
            stop=tenacity.stop_after_attempt(self.num_retries + 1),
            wait=tenacity.wait_exponential(multiplier=half_min, max=half_max)
            + tenacity.wait_random_exponential(multiplier=half_min, max=half_max),
            before_sleep=self._log_retry,
            reraise=True,
        )

    def _log_retry(self, state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome is not None else None
        cause = getattr(error, "__cause__", None) or error
        logger.warning(
            "LLM %s failed (%s); retry %d/%d in %.2fs",
            self.model,
            type(cause).__name__,
            state.attempt_number,
            self.num_retries,
            state.next_action.sleep if state.next_action is not None else 0.0,
        )

    def _classify(self, exc: Exception, litellm: Any) -> LLMError:
        """The LLMError for a litellm failure; only an `LLMTransientError` is retried."""
        status = getattr(exc, "status_code", None)
        detail = str(exc).strip() or type(exc).__name__
        if isinstance(exc, litellm.AuthenticationError) or status in (401, 403):
            return LLMAuthenticationError(
                f"The provider rejected the API key for model {self.model!r} "
                f"(HTTP {status or 401}). Check LLM_API_KEY (the `api_key` field). {detail}",
                model=self.model,
            )
        if self.api_key is None and any(marker in detail for marker in MISSING_KEY_MARKERS):
            # The provider's client found no key before sending anything; litellm reports that
            # as a server error, but no retry can fix it.
            return LLMAuthenticationError(
                f"No API key for model {self.model!r}: set LLM_API_KEY (the `api_key` "
                f"field) or the provider's own key variable. {detail}",
                model=self.model,
            )
        retryable = (
            litellm.RateLimitError,
            litellm.Timeout,
            litellm.APIConnectionError,
            litellm.InternalServerError,
            litellm.ServiceUnavailableError,
        )
        if isinstance(exc, retryable) or status == 429 or (status or 0) >= 500:
            return LLMTransientError(
                f"LLM {self.model!r} kept failing after {self.num_retries} retries: {detail}",
                model=self.model,
            )
        if isinstance(exc, litellm.BadRequestError) or (status and 400 <= status < 500):
            hint = ""
            if "LLM Provider NOT provided" in detail:
                hint = f" The model name needs a provider prefix. {ENV_HELP}"
            return LLMBadRequestError(
                f"LLM {self.model!r} refused the request (HTTP {status}): {detail}{hint}",
                model=self.model,
            )
        return LLMError(f"LLM {self.model!r} call failed: {detail}", model=self.model)

    def _parse(self, raw: Any, litellm: Any) -> LLMResponse:
        choices = getattr(raw, "choices", None) or []
        if not choices:
            raise LLMResponseError(f"LLM {self.model!r} returned no choices", model=self.model)
        msg = choices[0].message
        content: list[TextContent | ImageContent] = (
            [TextContent(text=msg.content)] if msg.content else []
        )
        calls = [
            MessageToolCall(
                id=call.id or f"call_{index}",
                name=call.function.name or "",
                arguments=call.function.arguments or "{}",
            )
            for index, call in enumerate(getattr(msg, "tool_calls", None) or [])
        ]
        usage = getattr(raw, "usage", None)
        return LLMResponse(
            message=Message(role="assistant", content=content, tool_calls=calls or None),
            id=getattr(raw, "id", "") or "",
            cost=_response_cost(raw, litellm),
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        )


def _response_cost(raw: Any, litellm: Any) -> float:
    hidden = getattr(raw, "_hidden_params", None) or {}
    cost = hidden.get("response_cost")
    if cost is None:
        try:
            cost = litellm.completion_cost(completion_response=raw)
        except Exception:  # unknown models have no price; that is not an error
            cost = 0.0
    return float(cost or 0.0)


@functools.cache
def _litellm_knows_mcp_skip_flag() -> bool:
    """True when litellm strips `_skip_mcp_handler` itself, so it never reaches a provider."""
    try:
        from litellm.litellm_core_utils.core_helpers import filter_internal_params
    except ImportError:
        return False
    return "_skip_mcp_handler" not in filter_internal_params({"_skip_mcp_handler": True})


def _import_litellm() -> Any:
    """Import litellm on first use, without its import-time side effects unless asked.

    By default litellm fetches its model price map from the network and loads a `.env` file
    from the working directory into `os.environ` when imported. We use the price map it ships
    and leave the environment alone; a user who sets either variable keeps their choice.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
    import litellm

    litellm.suppress_debug_info = True
    return litellm
