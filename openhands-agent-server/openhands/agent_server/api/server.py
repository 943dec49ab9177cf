"""Routes about the server itself: /health, /alive, /ready (no key needed) and /server_info."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from openhands.agent_server.api.models import (
    HealthResponse,
    LLMDefaults,
    SandboxInfo,
    ServerInfo,
)
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.sdk.workspace import SandboxStatus
from pydantic import BaseModel, Field

router = APIRouter(tags=["server"])


@router.get("/health", response_model=HealthResponse)
async def health() -> HealthResponse:
    """The server is up and its event loop answers (no key needed)."""
    return HealthResponse()


@router.get("/alive", response_model=HealthResponse)
async def alive() -> HealthResponse:
    """Liveness probe (no key needed)."""
    return HealthResponse()


class ReadyResponse(BaseModel):
    """The answer of /ready."""

    status: Literal["ready", "initializing"]
    message: str | None = Field(default=None, description="Why it is not ready yet.")


@router.get(
    "/ready",
    response_model=ReadyResponse,
    response_model_exclude_none=True,
    responses={503: {"model": ReadyResponse, "description": "Not ready yet."}},
)
async def ready(request: Request) -> JSONResponse:
    """Readiness probe (no key needed): 200 once the server serves conversations, 503 while a
    server started with OH_DEFERRED_INIT waits for POST /api/init."""
    warm_start = getattr(request.app.state, "warm_start", None)
    if warm_start is not None and not warm_start.ready:
        body = ReadyResponse(
            status="initializing",
            message=f"The server is {warm_start.state}: it waits for POST /api/init.",
        )
        return JSONResponse(body.model_dump(mode="json"), status_code=503)
    return JSONResponse(ReadyResponse(status="ready").model_dump(mode="json", exclude_none=True))


@router.get("/server_info", response_model=ServerInfo)
async def server_info(request: Request) -> ServerInfo:
    """Version, uptime, conversations (stored, open, damaged) and running goals."""
    conversations: ConversationRegistry = request.app.state.conversations
    config: ServerConfig = request.app.state.config
    uptime = time.monotonic() - request.app.state.started_at
    return ServerInfo(
        version=request.app.version,
        boot_id=request.app.state.boot_id,
        uptime_seconds=uptime,
        uptime=uptime,
        idle_time=_idle_time(conversations, uptime),
        conversations=conversations.count(),
        open_conversations=conversations.open_count,
        running_goals=conversations.running_goals,
        auth_enabled=config.auth_enabled,
        broken_conversations=conversations.broken,
        llm_defaults=LLMDefaults(
            model=config.llm_model,
            base_url=config.llm_base_url,
            api_key_set=config.llm_api_key is not None,
        ),
        sandbox=_sandbox_info(getattr(request.app.state, "sandbox", None)),
    )


def _idle_time(conversations: ConversationRegistry, uptime: float) -> float:
    """Seconds since the newest event of an open conversation (at most the uptime)."""
    newest = max(
        (live.conversation.state.updated_at for live in conversations.open_conversations()),
        default=None,
    )
    if newest is None:
        return uptime
    return max(0.0, min(uptime, (datetime.now(UTC) - newest).total_seconds()))


def _sandbox_info(status: SandboxStatus | None) -> SandboxInfo | None:
    if status is None:
        return None
    return SandboxInfo(
        mode=status.mode,
        active=status.active,
        network=status.network,
        warning=status.warning,
        self_check=status.self_check,
    )


def wants_json(request: Request) -> bool:
    """Whether a request for the root asks for JSON (an API client) rather than the page: its
    Accept names application/json and not text/html (browsers, curl and `*/*` get the page)."""
    accept = request.headers.get("accept", "").lower()
    return "application/json" in accept and "text/html" not in accept
