"""`LLM`: one configured model, called natively (OpenAI-compatible servers) or through litellm.

One pydantic class holds every setting and the calls (a settings base class would cost every
SDK import a copy of each field); which settings are sent is decided in `options.py`, which
transport carries them in `routing.py` (the `transport` field), the call itself behind
`transport.py` (`openai_compat/` over httpx, or litellm, imported lazily), its retries in
`retry_policy.py`.

Metrics belong to a usage slot: an LLM and its copies under the same `usage_id` (e.g. a
non-streaming copy made for one call) count into the same `Metrics`; a copy under another
`usage_id` (`copy_for`, `model_copy(update={"usage_id": ...})`) starts with fresh metrics.
`reset_metrics()` gives any LLM fresh metrics.
"""

import json
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Self

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.llm._litellm import import_litellm as _import_litellm
from openhands.sdk.llm.errors import (
    ENV_HELP,
    LLMBadRequestError,
    LLMConfigurationError,
    LLMResponseError,
    LLMTransientError,
)
from openhands.sdk.llm.llm_response import LLMCallContext, LLMResponse
from openhands.sdk.llm.message import Message
from openhands.sdk.llm.metrics import Metrics
from openhands.sdk.llm.settings import RetryListener, TransportName
from openhands.sdk.llm.tool_schema import openai_tool_dicts
from openhands.sdk.utils.skew import READING_WIRE_BODY
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    SerializationInfo,
    field_serializer,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

if TYPE_CHECKING:
    from openhands.sdk.llm.callbacks import TokenCallbackType
    from openhands.sdk.llm.fallback_strategy import FallbackStrategy
    from openhands.sdk.llm.tool_schema import LLMTool

__all__ = ["LLM", "LLM_PROFILE_SCHEMA_VERSION", "LLMCallContext", "LLMResponse"]

logger = logging.getLogger(__name__)

LLM_PROFILE_SCHEMA_VERSION = 1
"""Version of the saved-profile format (`LLMProfileStore`)."""

SECRET_FIELDS = ("api_key", "aws_access_key_id", "aws_secret_access_key", "aws_session_token")
"""Fields that hold credentials: never logged, dropped from JSON unless asked for."""


def _default_log_folder() -> str:
    return os.path.join(os.environ.get("LOG_DIR", "logs"), "completions")


NATIVE_TOOL_CALLING_ENV = "LLM_NATIVE_TOOL_CALLING"
"""`false` (or 0, no, off): describe the tools in the prompt instead of sending them (a local
model without tool calls); `true`: native calls; unset: the LLM's default."""


def native_tool_calling_from_env() -> bool | None:
    """`LLM_NATIVE_TOOL_CALLING` as a flag (None when unset); `LLMConfigurationError` for a
    value that is not a yes or a no."""
    raw = os.environ.get(NATIVE_TOOL_CALLING_ENV, "").strip().lower()
    if not raw:
        return None
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise LLMConfigurationError(
        f"{NATIVE_TOOL_CALLING_ENV}={raw!r}: give true (native tool calls) or false (tools "
        "described in the prompt, for a model without tool calls)"
    )


class LLM(BaseModel):
    """A language model with retries and cost metrics.

    OpenAI-compatible models are called over httpx (the native transport); other providers
    through litellm, imported on their first real completion, never at import time (see
    `transport`). Settings the reference SDK has but this one does not act on are accepted
    and documented as such.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    # -- which model, and how to reach it ------------------------------------------------------
    model: str = Field(min_length=1, description="litellm model name, e.g. 'openai/gpt-4o-mini'.")
    api_key: SecretStr | None = Field(default=None, description="Provider key; never logged.")
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint URL.")
    api_version: str | None = Field(default=None, description="API version (Azure).")
    custom_llm_provider: str | None = Field(
        default=None, description="litellm provider name, when the model name has no prefix."
    )
    ollama_base_url: str | None = Field(
        default=None, description="Endpoint for `ollama/...` models when `base_url` is unset."
    )
    aws_access_key_id: SecretStr | None = Field(default=None, description="Bedrock credential.")
    aws_secret_access_key: SecretStr | None = Field(default=None, description="Bedrock secret.")
    aws_session_token: SecretStr | None = Field(default=None, description="Bedrock session.")
    aws_region_name: str | None = None
    aws_profile_name: str | None = None
    aws_role_name: str | None = None
    aws_session_name: str | None = None
    aws_bedrock_runtime_endpoint: str | None = None
    openrouter_site_url: str = Field(
        default="https://docs.all-hands.dev/",
        description="Sent as HTTP-Referer to `openrouter/...` models (app attribution).",
    )
    openrouter_app_name: str = Field(
        default="OpenHands", description="Sent as X-Title to `openrouter/...` models."
    )
    extra_headers: dict[str, str] | None = Field(
        default=None, description="HTTP headers added to every request."
    )
    litellm_extra_body: dict[str, Any] = Field(
        default_factory=dict,
        description="Fields merged into the request body, e.g. vLLM's chat_template_kwargs "
        "(litellm's `extra_body`).",
    )
    usage_id: str = Field(default="default", description="Name under which metrics are kept.")
    auth_type: Literal["api_key", "subscription"] = Field(
        default="api_key", description="Only 'api_key' is supported here."
    )
    subscription_vendor: Literal["openai"] | None = Field(
        default=None, description="Accepted for the reference SDK's profiles; unused."
    )
    provider_connection_id: str | None = Field(
        default=None, description="Accepted for the reference SDK's profiles; unused."
    )

    # -- sampling and limits -------------------------------------------------------------------
    temperature: float | None = Field(
        default=0.0, ge=0.0, le=2.0, description="Sampling temperature; None sends none."
    )
    top_p: float | None = Field(default=None, ge=0.0, le=1.0, description="Nucleus sampling.")
    top_k: float | None = Field(default=None, ge=0.0, description="Top-k sampling.")
    seed: int | None = Field(default=None, description="Seed for providers that take one.")
    max_output_tokens: int | None = Field(
        default=None, ge=1, description="Cap on tokens per reply; None means the provider's."
    )
    max_input_tokens: int | None = Field(
        default=None,
        ge=1,
        description="The model's context window; None: litellm's value (used for routing).",
    )
    max_message_chars: int = Field(
        default=30_000,
        ge=1,
        description="Accepted for the reference SDK; tools bound their own output here.",
    )
    reasoning_effort: str | None = Field(
        default=None,
        description="'low', 'medium', 'high'...: sent to models that support it; None: none.",
    )
    reasoning_summary: Literal["auto", "concise", "detailed"] | None = Field(
        default=None, description="Responses API reasoning summary detail."
    )
    enable_encrypted_reasoning: bool = Field(
        default=True, description="Responses API: ask for encrypted reasoning to send back."
    )
    extended_thinking_budget: int | None = Field(
        default=None,
        ge=1,
        description="Anthropic extended-thinking token budget for Claude reasoning models "
        "(used when reasoning_effort is None); None: off.",
    )
    prompt_cache_retention: str | None = Field(
        default=None, description="Accepted for the reference SDK; not sent."
    )
    input_cost_per_token: float | None = Field(
        default=None, ge=0.0, description="USD per prompt token; overrides litellm's prices."
    )
    output_cost_per_token: float | None = Field(
        default=None, ge=0.0, description="USD per completion token; overrides litellm's prices."
    )

    # -- transport ------------------------------------------------------------------------------
    # Bounded so that an absurd spec fails validation instead of overflowing the OS timers
    # (OverflowError) or sleeping for years in a thread no pause reaches.
    num_retries: int = Field(
        default=5, ge=0, le=100, description="Retries on 429, 5xx, timeouts and connection errors."
    )
    retry_min_wait: float = Field(
        default=1.0, ge=0.0, le=3600, description="First backoff, seconds (<= 1 hour)."
    )
    retry_max_wait: float = Field(
        default=20.0, ge=0.0, le=3600, description="Largest backoff, seconds (<= 1 hour)."
    )
    retry_multiplier: float | None = Field(
        default=None, gt=1.0, le=100, description="Backoff growth per retry; None: 2."
    )
    timeout: float | None = Field(
        default=300.0, gt=0, le=86_400, description="Seconds per HTTP request (<= 1 day)."
    )
    stream: bool = Field(
        default=False,
        description="Stream replies; `completion(on_token=...)` then sees each chunk (the "
        "goal judge never streams).",
    )
    drop_params: bool = Field(
        default=True,
        description="Leave out options the model does not take (litellm's rules, on both "
        "transports); False: such an option is an LLMBadRequestError before anything is sent.",
    )
    modify_params: bool = Field(
        default=True, description="Accepted for the reference SDK; unused (deprecated there)."
    )
    transport: TransportName = Field(
        default="auto",
        description="Which client sends chat completions: 'native' (the SDK's own, over httpx, "
        "for OpenAI-compatible servers), 'litellm', or 'auto': native for `openai/`, "
        "`hosted_vllm/`, `lm_studio/`, `llamafile/`, `litellm_proxy/` models and names without "
        "a provider prefix that are OpenAI models or have a base_url; litellm otherwise and for "
        "the Responses API (docs/llm.md).",
    )
    api_mode: Literal["auto", "chat", "responses"] = Field(
        default="auto",
        description="'responses' calls the OpenAI Responses API; 'auto' and 'chat' use chat "
        "completions.",
    )
    native_tool_calling: bool = Field(
        default=True,
        description="Send tools natively. False: for models or servers without tool calling, "
        "the tools are described in the system prompt and the calls read back from the reply's "
        "text (chat completions; docs/llm.md).",
    )
    force_string_serializer: bool | None = Field(
        default=None, description="Send message content as one string (drops images)."
    )
    inline_image_urls: bool | None = Field(
        default=None, description="Accepted for the reference SDK; image URLs are sent as is."
    )
    disable_vision: bool | None = Field(
        default=None, description="Never send images, even to a vision model."
    )
    disable_stop_word: bool | None = Field(
        default=False,
        description="With native_tool_calling=False, do not send the stop word that ends a reply "
        "after its first call (for servers that refuse `stop`).",
    )
    caching_prompt: bool = Field(
        default=True, description="Mark prompt-cache breakpoints for models that need them."
    )
    capability_overrides: dict[str, bool | str] = Field(
        default_factory=dict,
        description='What the model can do, when litellm does not know it: e.g. {"supports_'
        'vision": true, "supports_reasoning_effort": false, "supports_prompt_cache": true}.',
    )
    model_canonical_name: str | None = Field(
        default=None, description="Model name for capability lookups (for aliases, proxies)."
    )
    custom_tokenizer: str | None = Field(
        default=None, description="Accepted for the reference SDK; litellm's counter is used."
    )
    log_completions: bool = Field(
        default=False, description="Write one JSON file per completion (see completion_log)."
    )
    log_completions_folder: str = Field(
        default_factory=_default_log_folder,
        description="Where `log_completions` writes ($LOG_DIR/completions by default).",
    )
    # A FallbackStrategy, loaded with the first LLM that has one (see `_fallback_strategy`).
    if TYPE_CHECKING:
        fallback_strategy: FallbackStrategy | None = None
    else:
        fallback_strategy: SkipJsonSchema[Any] = Field(
            default=None,
            exclude=True,
            description="LLM profiles to try when this one keeps failing; not serialized.",
        )
    retry_listener: SkipJsonSchema[RetryListener | None] = Field(
        default=None,
        exclude=True,
        description="Called as (attempt, num_retries, error) before each retry.",
    )

    @model_validator(mode="before")
    @classmethod
    def _accept_unknown_fields(cls, data: Any) -> Any:
        # As the reference SDK's LLM: fields it does not know (a newer or older version's
        # spec, the reference's computed `is_subscription`) are accepted and ignored; here
        # with one log line naming them, so a misspelt setting does not pass unseen.
        if not isinstance(data, dict) or READING_WIRE_BODY.get():
            return data  # a wire body: its own rule drops and names them, in one line
        unknown = [key for key in data if key not in cls.model_fields]
        if not unknown:
            return data
        quiet = {"is_subscription"}
        if set(unknown) - quiet:
            logger.info("LLM: ignoring fields it does not know: %s", ", ".join(sorted(unknown)))
        return {key: value for key, value in data.items() if key not in unknown}

    @field_validator("api_key", mode="before")
    @classmethod
    def _empty_key_is_none(cls, value: Any) -> Any:
        # "" (or a blank SecretStr) means no key, as in the reference: litellm then reads the
        # provider's environment variable instead of sending an empty bearer token.
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        return None if isinstance(text, str) and not text.strip() else value

    @field_validator("fallback_strategy", mode="before")
    @classmethod
    def _fallback_strategy(cls, value: Any) -> Any:
        if value is None:
            return None
        from openhands.sdk.llm.fallback_strategy import FallbackStrategy

        return (
            value if isinstance(value, FallbackStrategy) else FallbackStrategy.model_validate(value)
        )

    @model_validator(mode="after")
    def _check_retry_waits(self) -> Self:
        if self.retry_max_wait < self.retry_min_wait:
            raise ValueError(
                f"retry_max_wait ({self.retry_max_wait}) must be >= retry_min_wait "
                f"({self.retry_min_wait})"
            )
        return self

    @field_serializer(*SECRET_FIELDS, when_used="always")
    def _serialize_secret(self, value: SecretStr | None, info: SerializationInfo) -> Any:
        # Secrets never reach disk or logs: JSON dumps drop them unless the caller asks for
        # them explicitly with context={"expose_secrets": True} (e.g. sending a spec to a server).
        if value is None:
            return None
        if isinstance(info.context, dict) and info.context.get("expose_secrets"):
            return value.get_secret_value()
        return None if info.mode == "json" else value

    _metrics: Metrics = PrivateAttr()

    def model_post_init(self, __context: Any) -> None:
        """Start with empty metrics under this LLM's `usage_id`."""
        self._metrics = Metrics(usage_id=self.usage_id, model_name=self.model)

    # -- construction --------------------------------------------------------------------------

    @classmethod
    def from_env(cls, usage_id: str = "default", **overrides: Any) -> "LLM":
        """Build an LLM from LLM_MODEL, LLM_API_KEY and LLM_BASE_URL (and
        LLM_NATIVE_TOOL_CALLING=false for a model without tool calls), or say what to set."""
        model = os.environ.get("LLM_MODEL", "").strip()
        if not model:
            raise LLMConfigurationError(f"No LLM configured. {ENV_HELP}")
        api_key = os.environ.get("LLM_API_KEY") or None
        base_url = os.environ.get("LLM_BASE_URL") or None
        native = native_tool_calling_from_env()
        if native is not None:
            overrides.setdefault("native_tool_calling", native)
        return cls(
            model=model,
            api_key=SecretStr(api_key) if api_key else None,
            base_url=base_url,
            usage_id=usage_id,
            **overrides,
        )

    @classmethod
    def load_from_env(cls, prefix: str = "LLM_") -> "LLM":
        """Build an LLM from `<prefix><FIELD>` variables (e.g. LLM_MODEL, LLM_TOP_P).

        Values that look like JSON objects or lists are parsed as JSON.
        """
        data: dict[str, Any] = {}
        for name in cls.model_fields:
            raw = os.environ.get(f"{prefix}{name.upper()}")
            if raw is None or raw == "":
                continue
            data[name] = json.loads(raw) if raw.strip()[:1] in ("{", "[") else raw
        if "model" not in data:
            raise LLMConfigurationError(f"No LLM configured: set {prefix}MODEL. {ENV_HELP}")
        return cls.model_validate(data)

    @classmethod
    def load_from_json(cls, path: str | Path) -> "LLM":
        """Build an LLM from a JSON file of its settings (e.g. a saved profile)."""
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))

    # -- metrics and copies --------------------------------------------------------------------

    @property
    def metrics(self) -> Metrics:
        """Cost and token usage accumulated under this LLM's usage slot."""
        return self._metrics

    def reset_metrics(self) -> None:
        """Count from zero in fresh metrics (copies made earlier keep the old ones)."""
        self._metrics = Metrics(usage_id=self.usage_id, model_name=self.model)

    def restore_metrics(self, metrics: Metrics) -> None:
        """Count into `metrics` from now on (e.g. counts saved with a conversation)."""
        self._metrics = metrics

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy; it shares this LLM's metrics unless `update` changes the `usage_id`."""
        copied = super().model_copy(update=update, deep=deep)
        if update and "usage_id" in update and update["usage_id"] != self.usage_id:
            copied.reset_metrics()
        return copied

    def copy_for(self, usage_id: str, **changes: Any) -> "LLM":
        """A validated copy with another `usage_id` and fresh metrics (e.g. a goal judge)."""
        data = {name: getattr(self, name) for name in type(self).model_fields}
        data.update(changes, usage_id=usage_id)
        return type(self)(**data)

    # -- what the model can do -----------------------------------------------------------------

    def uses_native_transport(self) -> bool:
        """Whether chat completions go through the native transport (`transport`)."""
        from openhands.sdk.llm.routing import uses_native_transport

        return uses_native_transport(self)

    def _supports(self, feature: Any) -> bool | None:
        from openhands.sdk.llm.capabilities import supports

        return supports(
            self.model_canonical_name or self.model,
            feature,
            overrides=self.capability_overrides,
            provider=self.custom_llm_provider,
            native=self.uses_native_transport(),
        )

    def vision_is_active(self) -> bool:
        """Whether images are sent: not disabled, and the model is not known to be blind.

        A model litellm does not know gets the benefit of the doubt (set
        `capability_overrides={"supports_vision": False}` or `disable_vision` to stop it).
        """
        if self.disable_vision:
            return False
        return self._supports("vision") is not False

    def is_caching_prompt_active(self) -> bool:
        """Whether prompt caching is on and the model is known to support it."""
        return self.caching_prompt and self._supports("prompt_cache") is True

    def uses_responses_api(self) -> bool:
        """Whether completions go through the OpenAI Responses API (`api_mode="responses"`)."""
        if self.api_mode != "auto":
            return self.api_mode == "responses"
        return self.capability_overrides.get("supports_responses_api") is True

    @property
    def model_info(self) -> dict[str, Any] | None:
        """litellm's model-map information on this model (context window, prices), or None."""
        from openhands.sdk.llm.capabilities import model_info

        return model_info(
            self.model_canonical_name or self.model,
            self.custom_llm_provider,
            native=self.uses_native_transport(),
        )

    @property
    def effective_max_input_tokens(self) -> int | None:
        """`max_input_tokens`, else litellm's context window for the model (None: unknown)."""
        if self.max_input_tokens:
            return self.max_input_tokens
        info = self.model_info
        value = info.get("max_input_tokens") if info else None
        return value if isinstance(value, int) else None

    @property
    def effective_max_output_tokens(self) -> int | None:
        """`max_output_tokens`, else litellm's output limit for the model (None: unknown)."""
        from openhands.sdk.llm.options import output_token_cap

        return output_token_cap(self)

    def get_token_count(self, messages: list[Message]) -> int:
        """Tokens `messages` take for this model (litellm's counter, so it imports litellm
        whatever the transport; 0 if it cannot tell)."""
        try:
            return int(
                _import_litellm().token_counter(
                    model=self.model_canonical_name or self.model,
                    messages=self.format_messages_for_llm(messages),
                )
            )
        except Exception:
            return 0

    # -- message formatting --------------------------------------------------------------------

    def format_messages_for_llm(self, messages: list[Message]) -> list[dict[str, Any]]:
        """`messages` as the chat-completions dicts this LLM would send (JSON-ready)."""
        from openhands.sdk.llm.options import format_chat_messages

        return format_chat_messages(self, messages)

    def format_messages_for_responses(
        self, messages: list[Message]
    ) -> tuple[str | None, list[dict[str, Any]]]:
        """`messages` as the Responses API wants them: (instructions, input items)."""
        vision = self.vision_is_active()
        instructions: list[str] = []
        items: list[dict[str, Any]] = []
        for message in messages:
            value = message.to_responses_value(vision_enabled=vision)
            if isinstance(value, str):
                if value:
                    instructions.append(value)
            else:
                items.extend(value)
        return ("\n\n".join(instructions) or None), items

    # -- completion ----------------------------------------------------------------------------

    def completion(
        self,
        messages: list[Message],
        tools: "Sequence[LLMTool | dict[str, Any]] | None" = None,
        add_security_risk_prediction: bool = False,
        on_token: "TokenCallbackType | None" = None,
        call_context: LLMCallContext | None = None,
        *,
        stream: bool | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        """Ask the model for the next assistant message (tool calls included).

        `tools` are tool definitions or OpenAI tool dicts. The call streams when `stream`
        (or, if None, the `stream` field) says so; `on_token` then receives every chunk as
        it arrives, in the OpenAI chunk shape (`chunk.choices[0].delta.content`): an
        `LLMStreamChunk` from the native transport, litellm's `ModelResponseStream` from
        litellm. Extra keyword arguments are sent as request options (litellm's rules: see
        docs/llm.md). On a persistent failure, `fallback_strategy` is tried.
        """
        if not messages:
            raise InvalidArgumentError(
                "completion() needs at least one message, e.g. [Message(role='user', ...)]"
            )
        tool_dicts = openai_tool_dicts(tools, add_security_risk_prediction)
        if self.auth_type != "api_key":
            raise LLMConfigurationError(
                f"LLM {self.model!r}: auth_type={self.auth_type!r} is not supported; use "
                "auth_type='api_key' with an api_key.",
                model=self.model,
            )
        use_stream = self.stream if stream is None else stream
        extra: dict[str, Any] = {}
        if on_token is not None:
            extra["on_token"] = on_token
        if call_context is not None:
            extra["call_context"] = call_context
        if kwargs:
            extra["params"] = kwargs
        try:
            response = self._complete_chat_or_prompt(messages, tool_dicts, use_stream, extra)
        except LLMBadRequestError as error:
            if not tool_dicts or not self.native_tool_calling:
                raise
            from openhands.sdk.llm.prompt_tools import hint_tools_refused

            hinted = hint_tools_refused(error)
            if hinted is error:
                raise
            raise hinted from error
        except (LLMTransientError, LLMResponseError) as error:
            fallback = self.fallback_strategy
            if fallback is None or not fallback.should_fallback(error):
                raise
            rescued = fallback.try_fallback(
                primary_model=self.model,
                primary_error=error,
                primary_metrics=self._metrics,
                call_fn=lambda other: other.completion(
                    messages, tool_dicts, on_token=on_token, stream=stream, **kwargs
                ),
                load=LLM.model_validate_json,
            )
            if rescued is None:
                raise
            return rescued
        self._metrics.add(
            cost=response.cost,
            prompt_tokens=response.prompt_tokens,
            completion_tokens=response.completion_tokens,
            cache_read_tokens=response.cache_read_tokens,
            cache_write_tokens=response.cache_write_tokens,
            reasoning_tokens=response.reasoning_tokens,
            context_window=self._context_window(response),
            response_id=response.id,
            latency=response.latency,
            model=self.model,
        )
        response.metrics = self._metrics.get_snapshot()
        return response

    def _complete_chat_or_prompt(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        stream: bool,
        extra: dict[str, Any],
    ) -> LLMResponse:
        """`_complete`, with the tools moved into the prompt and the calls read back out of
        the reply when `native_tool_calling` is off (`prompt_tools/`, loaded only then)."""
        if not tools or self.native_tool_calling or self.uses_responses_api():
            return self._complete(messages, tools, stream, **extra)
        from openhands.sdk.llm.prompt_tools import PromptToolCalling

        prompt = PromptToolCalling(self, tools)
        extra = {**extra, "params": prompt.params(extra.get("params"))}
        if extra["params"] is None:
            del extra["params"]
        response = self._complete(prompt.messages(messages), None, stream, **extra)
        return prompt.read(response)

    def _context_window(self, response: LLMResponse) -> int:
        # litellm's figure only for real calls: a scripted reply must not import litellm.
        if self.max_input_tokens or response.raw_response is None:
            return self.max_input_tokens or 0
        return self.effective_max_input_tokens or 0

    def _complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        stream: bool,
        *,
        on_token: "TokenCallbackType | None" = None,
        call_context: LLMCallContext | None = None,
        params: dict[str, Any] | None = None,
    ) -> LLMResponse:
        """One completion with retries; subclasses (TestLLM) replace this."""
        from openhands.sdk.llm.options import chat_params, format_chat_messages
        from openhands.sdk.llm.transport import complete_chat

        if self.uses_responses_api():
            from openhands.sdk.llm.responses_api import complete_responses

            if self.transport == "native":
                raise LLMConfigurationError(
                    f"LLM {self.model!r}: the Responses API (api_mode='responses') goes through "
                    "litellm; set transport='auto' (or 'litellm'), or api_mode='chat' to keep "
                    "the native transport.",
                    model=self.model,
                )

            request = chat_params(self, stream=False, call_context=call_context, overrides=params)
            response = complete_responses(self, messages, tools, request)
        else:
            request = chat_params(self, stream=stream, call_context=call_context, overrides=params)
            request["messages"] = format_chat_messages(self, messages)
            if tools:
                request["tools"] = tools
            response = complete_chat(self, request, on_token=on_token)
        if self.log_completions:
            from openhands.sdk.llm.completion_log import write_completion_log

            write_completion_log(self.log_completions_folder, request, response)
        return response
