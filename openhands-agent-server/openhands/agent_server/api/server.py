"""Routes about the server itself: /health, /alive (no key needed) and /server_info."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from openhands.agent_server.api.models import (
    HealthResponse,
    LLMDefaults,
    SandboxInfo,
    ServerInfo,
)
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.sdk.workspace import SandboxStatus

router = APIRouter(tags=["server"])


@router.get("/health", response_model=HealthResponse)
async def health() -> HealthResponse:
    """The server is up and its event loop answers (no key needed)."""
    return HealthResponse()


@router.get("/alive", response_model=HealthResponse)
async def alive() -> HealthResponse:
    """Liveness probe (no key needed)."""
    return HealthResponse()


@router.get("/server_info", response_model=ServerInfo)
async def server_info(request: Request) -> ServerInfo:
    """Version, uptime, conversations (stored, open, damaged) and running goals."""
    conversations: ConversationRegistry = request.app.state.conversations
    config: ServerConfig = request.app.state.config
    return ServerInfo(
        version=request.app.version,
        boot_id=request.app.state.boot_id,
        uptime_seconds=time.monotonic() - request.app.state.started_at,
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
