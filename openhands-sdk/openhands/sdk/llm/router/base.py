"""`RouterLLM`: an `LLM` that hands each completion to one of `llms_for_routing`."""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.errors import LLMConfigurationError
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.llm_response import LLMCallContext, LLMResponse
from openhands.sdk.llm.message import Message
from pydantic import Field, field_validator, model_validator

if TYPE_CHECKING:
    from openhands.sdk.llm.callbacks import TokenCallbackType
    from openhands.sdk.llm.tool_schema import LLMTool

logger = logging.getLogger(__name__)


class RouterLLM(LLM):
    """Several LLMs behind one: `select_llm(messages)` names the one each call goes to.

    Usable wherever an `LLM` is (e.g. `Agent(llm=router)`). Each routed LLM counts its own
    cost and tokens; the router's own `metrics` stay empty, so a conversation's stats should
    count the routed LLMs (`llms_for_routing`). `model` defaults to the router's name.
    """

    model: str = Field(default="router", min_length=1, description="Defaults to the router's name.")
    router_name: str = Field(default="base_router", description="The router's name.")
    llms_for_routing: dict[str, LLM] = Field(
        default_factory=dict, description="The LLMs to route between, by key (non-empty)."
    )
    active_llm: LLM | None = Field(
        default=None, description="The LLM the latest completion went to."
    )

    @model_validator(mode="before")
    @classmethod
    def _model_defaults_to_the_router_name(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("model"):
            data = {**data, "model": data.get("router_name") or cls._default_router_name()}
        return data

    @classmethod
    def _default_router_name(cls) -> str:
        field = cls.model_fields.get("router_name")
        default = field.default if field is not None else None
        return default if isinstance(default, str) and default else "router"

    @field_validator("llms_for_routing")
    @classmethod
    def _not_empty(cls, value: dict[str, LLM]) -> dict[str, LLM]:
        if not value:
            raise ValueError("llms_for_routing needs at least one LLM to route to")
        return value

    @abstractmethod
    def select_llm(self, messages: list[Message]) -> str:
        """The key (in `llms_for_routing`) of the LLM that should answer `messages`."""

    def completion(
        self,
        messages: list[Message],
        tools: Sequence[LLMTool | dict[str, Any]] | None = None,
        add_security_risk_prediction: bool = False,
        on_token: TokenCallbackType | None = None,
        call_context: LLMCallContext | None = None,
        *,
        stream: bool | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        """Route the call to the selected LLM and return its answer."""
        key = self.select_llm(messages)
        chosen = self.llms_for_routing.get(key)
        if chosen is None:
            raise LLMConfigurationError(
                f"{type(self).__name__}.select_llm chose {key!r}, which is not one of "
                f"{sorted(self.llms_for_routing)}"
            )
        self.active_llm = chosen
        logger.info("%s routes this call to %r (%s)", type(self).__name__, key, chosen.model)
        return chosen.completion(
            messages,
            tools,
            add_security_risk_prediction,
            on_token,
            call_context,
            stream=stream,
            **kwargs,
        )

    def __str__(self) -> str:
        return f"{type(self).__name__}(llms={list(self.llms_for_routing)})"
