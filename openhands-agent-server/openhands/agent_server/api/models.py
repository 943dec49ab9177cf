"""The API's own models: server answers, OpenAPI helpers, and the names the design gives.

The conversation, message, event-page and error models are the SDK's wire models
(`openhands.sdk.wire`), shared with the remote client; this module adds what only the
server answers (health, server info) and the documented error statuses of each route.
"""

from __future__ import annotations

from typing import Any, Literal

from openhands.agent_server.services.catalog import BrokenConversation
from openhands.sdk.event import (
    ActionEvent,
    AgentErrorEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    MessageEvent,
    ObservationEvent,
    PauseEvent,
    SystemPromptEvent,
    UserRejectObservation,
)
from openhands.sdk.wire import ErrorResponse
from pydantic import BaseModel, Field

AnyEvent = (
    MessageEvent
    | ActionEvent
    | ObservationEvent
    | AgentErrorEvent
    | UserRejectObservation
    | SystemPromptEvent
    | PauseEvent
    | ConversationErrorEvent
    | ConversationStateUpdateEvent
)
"""Every event kind the SDK defines, for OpenAPI; the JSON `kind` field names the class."""


class HealthResponse(BaseModel):
    """The answer of /health and /alive."""

    status: Literal["ok"] = "ok"


class LLMDefaults(BaseModel):
    """The server's LLM settings from its environment, for clients that create conversations."""

    model: str | None = Field(default=None, description="LLM_MODEL, if set.")
    base_url: str | None = Field(default=None, description="LLM_BASE_URL, if set.")
    api_key_set: bool = Field(
        default=False,
        description="Whether LLM_API_KEY is set (then an agent LLM without api_key gets it).",
    )


class SandboxInfo(BaseModel):
    """Where the agent's processes run (OH_SANDBOX), as the server found it at start."""

    mode: Literal["auto", "bwrap", "off"] = Field(description="The OH_SANDBOX setting.")
    active: bool = Field(description="Whether the agent's processes run in bubblewrap.")
    network: Literal["isolated", "host", "none"] = Field(
        description="`isolated`: their own network namespace through slirp4netns (no access "
        "to the host's loopback); `none`: no network (OH_SANDBOX_NETWORK=false, or "
        "slirp4netns missing: see `warning`); `host`: the server's network (no sandbox)."
    )
    warning: str | None = Field(
        default=None,
        description="What the operator should know: no sandbox (and why: e.g. the self-check "
        "failed), a shared network.",
    )
    self_check: Literal["passed", "failed", "skipped"] = Field(
        default="skipped",
        description="The check at start: one trivial command through the sandbox, the "
        "server's Python and the terminal's launcher. `failed`: `warning` says what failed "
        "(with OH_SANDBOX=auto the agent then runs unsandboxed); `skipped`: no sandbox to check.",
    )


class ServerInfo(BaseModel):
    """What the server is and what it holds."""

    version: str
    boot_id: str = Field(
        description="A fresh UUID each time the server process starts: when it changes, the "
        "server restarted (goals it was running are now `interrupted`)."
    )
    uptime_seconds: float
    uptime: float = Field(description="The same as uptime_seconds (the reference's name).")
    idle_time: float = Field(
        description="Seconds since an open conversation last recorded an event (since the "
        "start when none did): how long the server's agents have been quiet."
    )
    conversations: int = Field(description="Conversations stored on this server.")
    open_conversations: int = Field(
        description="Conversations open in memory: opened by a request since start-up, or "
        "reopened at start-up to record a run or goal the previous server left unfinished."
    )
    running_goals: int = Field(description="Goal loops currently driving a conversation.")
    auth_enabled: bool = Field(description="Whether X-Session-API-Key is required.")
    broken_conversations: list[BrokenConversation] = Field(
        default_factory=list,
        description="Stored conversations skipped because their files are damaged (found at "
        "start-up, or when a request first opened them).",
    )
    llm_defaults: LLMDefaults = Field(
        default_factory=LLMDefaults, description="LLM_MODEL, LLM_BASE_URL and LLM_API_KEY."
    )
    sandbox: SandboxInfo | None = Field(
        default=None, description="Where the agent's processes run (OH_SANDBOX)."
    )


_ERROR_DESCRIPTIONS = {
    400: "The request cannot be honoured now (e.g. nothing to resume).",
    401: "Missing or invalid X-Session-API-Key header.",
    404: "Unknown conversation or event.",
    403: "A web page from another origin may not do this (set OH_ALLOWED_ORIGINS).",
    409: "A run or a goal is in progress.",
    413: "The body is larger than OH_MAX_BODY_BYTES.",
    421: "The Host header does not name this server (set OH_ALLOWED_HOSTS).",
    422: "A field is invalid; `message` names it and `detail` lists every bad field.",
    502: "The agent's run (or goal) ended in an error; `message` says which.",
    504: "The run did not end in time (OH_GATEWAY_WAIT_SECONDS); it goes on.",
    503: "The server's storage refused a read or a write; retry once it is healthy.",
    507: "The server's disk is full; free space, then retry.",
}


STORAGE = (503, 507)
"""The statuses of a route that writes to disk (the edge answers them for StorageError)."""


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries documenting these error statuses with `ErrorResponse`."""
    return {
        code: {"model": ErrorResponse, "description": _ERROR_DESCRIPTIONS[code]}
        for code in (401, *codes, 422)
    }
