"""Wire models of what changes or asks about a live conversation after its creation.

Title and tags (`PATCH /{id}`), its secrets, the HEAD of its event tree (`navigate`), its
LLM (`switch_llm`, `switch_profile`), plugins loaded into it, a question to its agent
(`ask_agent`), its final answer and the runtime it runs in. The names and shapes are the
reference server's, so its `RemoteConversation` drives these routes unchanged.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any

from openhands.sdk.conversation.types import validate_tags
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.llm_profile_store import PROFILE_NAME
from openhands.sdk.secret.secrets import SecretSpec
from openhands.sdk.wire.base import WIRE, WireAnswer, WireRequest
from pydantic import BaseModel, BeforeValidator, Field, field_validator

_SECRET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

MAX_TITLE_CHARS = 200
"""The longest title a client may set (the reference's limit)."""

MAX_QUESTION_CHARS = 100_000
"""The longest question `ask_agent` takes (it goes to the LLM with the whole context)."""

Tags = Annotated[dict[str, str], BeforeValidator(validate_tags)]


class UpdateConversationRequest(WireRequest):
    """Body of PATCH /{id}: a new title, new tags, or both (at least one)."""

    title: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_TITLE_CHARS,
        description="The new title (not blank).",
    )
    tags: Tags | None = Field(
        default=None,
        description="Replace all tags (keys: lowercase letters and digits; values up to 256 "
        "characters).",
    )

    @field_validator("title")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("title must not be blank")
        return value.strip() if value is not None else None


class NavigateConversationRequest(WireRequest):
    """Body of POST /{id}/navigate: the event the next one follows (null: an empty tree)."""

    event_id: str | None = Field(
        default=None,
        max_length=200,
        description="An event of this conversation; the agent's context becomes the branch "
        "from the root to it. Other branches stay in the log.",
    )


class UpdateSecretsRequest(WireRequest):
    """Body of POST /{id}/secrets: secrets added to (or replacing those of) the conversation."""

    secrets: dict[str, SecretSpec] = Field(
        description='{NAME: "value"}, {NAME: {"kind": "StaticSecret", "value": ...}} or '
        '{NAME: {"kind": "LookupSecret", "url": ..., "headers": {...}}}. A terminal command '
        "naming $NAME gets the value; its output shows <secret-hidden> instead."
    )

    @field_validator("secrets")
    @classmethod
    def _names(cls, value: dict[str, Any]) -> dict[str, Any]:
        for name in value:
            if not _SECRET_NAME.match(name):
                raise ValueError(
                    f"secret name {name!r} is not an environment variable name (letters, "
                    "digits and '_', not starting with a digit)"
                )
        return value


class SwitchLLMRequest(WireRequest):
    """Body of POST /{id}/switch_llm: the LLM that drives the agent from its next step on."""

    llm: LLM = Field(
        description="The LLM (its key, if sent, is sealed on the server and never answered; "
        "without one, a stored key for the same model and base URL is used)."
    )


class SwitchProfileRequest(WireRequest):
    """Body of POST /{id}/switch_profile: a stored LLM profile (/api/profiles) by name."""

    profile_name: str = Field(
        pattern=PROFILE_NAME.pattern, description="The profile; its key stays on the server."
    )


class LoadPluginRequest(WireRequest):
    """Body of POST /{id}/load_plugin."""

    plugin_ref: str = Field(
        min_length=1,
        max_length=4096,
        description="A local folder or git URL of a plugin (`.plugin/plugin.json`), or "
        "`name@marketplace` of a marketplace the conversation's plugins registered.",
    )


class AskAgentRequest(WireRequest):
    """Body of POST /{id}/ask_agent."""

    question: str = Field(
        min_length=1, max_length=MAX_QUESTION_CHARS, description="The question to ask the agent."
    )

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("question must not be blank")
        return value


class AskAgentResponse(WireAnswer):
    """The agent's answer to a question; nothing is recorded in the conversation."""

    response: str = Field(description="The agent's answer.")


class AgentResponseResult(WireAnswer):
    """GET /{id}/agent_final_response: the agent's last answer on the active branch."""

    response: str = Field(
        description="The message of its last `finish` call, or its last text reply; empty "
        "when it has given none yet."
    )


class ConversationRuntimeStatus(StrEnum):
    """Whether the runtime a conversation runs in is there (this server: in-process)."""

    AVAILABLE = "available"
    STARTING = "starting"
    MISSING = "missing"
    OWNERSHIP_LOST = "ownership_lost"
    ERROR = "error"


class ConversationRuntimeError(BaseModel):
    """Why a runtime failed."""

    model_config = WIRE

    code: str
    message: str


class ConversationRuntimeInfo(WireAnswer):
    """GET /{id}/runtime: the agent runs in this server's process, always `available`."""

    runtime_status: ConversationRuntimeStatus = ConversationRuntimeStatus.AVAILABLE
    can_resume: bool = True
    runtime_error: ConversationRuntimeError | None = None
