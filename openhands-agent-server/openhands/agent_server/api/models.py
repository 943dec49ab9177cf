"""Small response models shared by every router."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class Success(BaseModel):
    """The answer of a call that only acknowledges: `{"success": true}`."""

    success: Literal[True] = True


class ErrorDetail(BaseModel):
    """One problem with a request: where it is (`loc`) and what is wrong (`msg`)."""

    loc: list[str | int] = Field(description="Path to the bad field, e.g. ['body', 'objective'].")
    msg: str = Field(description="What is wrong and how to fix it.")
    type: str = Field(description="A machine-readable error type.")


class ErrorResponse(BaseModel):
    """The body of every 4xx answer: a readable `message` plus the detail."""

    message: str = Field(description="One line naming the field (if any) and the problem.")
    detail: str | list[ErrorDetail] = Field(description="The error, or one entry per bad field.")


class HealthResponse(BaseModel):
    """The answer of /health and /alive."""

    status: Literal["ok"] = "ok"


class BrokenConversation(BaseModel):
    """A persisted conversation that could not be loaded at start-up (it is skipped)."""

    id: str = Field(description="The folder name under the conversations path.")
    error: str = Field(description="Why it could not be loaded.")


class LLMDefaults(BaseModel):
    """The server's LLM settings from its environment, for clients that create conversations."""

    model: str | None = Field(default=None, description="LLM_MODEL, if set.")
    base_url: str | None = Field(default=None, description="LLM_BASE_URL, if set.")
    api_key_set: bool = Field(
        default=False,
        description="Whether LLM_API_KEY is set (then an agent LLM without api_key gets it).",
    )


class ServerInfo(BaseModel):
    """What the server is and what it holds."""

    version: str
    boot_id: str = Field(
        description="A fresh UUID each time the server process starts: when it changes, the "
        "server restarted (goals it was running are now `interrupted`)."
    )
    uptime_seconds: float
    conversations: int = Field(description="Conversations currently loaded.")
    running_goals: int = Field(description="Goal loops currently driving a conversation.")
    auth_enabled: bool = Field(description="Whether X-Session-API-Key is required.")
    broken_conversations: list[BrokenConversation] = Field(
        default_factory=list, description="Persisted conversations skipped at start-up."
    )
    llm_defaults: LLMDefaults = Field(
        default_factory=LLMDefaults, description="LLM_MODEL, LLM_BASE_URL and LLM_API_KEY."
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
    503: "The server's storage refused a read or a write; retry once it is healthy.",
    507: "The server's disk is full; free space, then retry.",
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries documenting these error statuses with `ErrorResponse`."""
    return {
        code: {"model": ErrorResponse, "description": _ERROR_DESCRIPTIONS[code]}
        for code in (401, *codes, 422)
    }
