"""The FastAPI application: routes, error handling, the web page and the service life cycle."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.conversations.router import router as conversations_router
from openhands.agent_server.conversations.service import ConversationService
from openhands.agent_server.edge.docs import add_offline_docs
from openhands.agent_server.edge.error_handlers import install_error_handlers
from openhands.agent_server.edge.guard import EdgeGuard
from openhands.agent_server.events.router import router as events_router
from openhands.agent_server.events.sockets import router as sockets_router
from openhands.agent_server.goals.router import router as goals_router
from openhands.agent_server.models import HealthResponse, LLMDefaults, ServerInfo

logger = logging.getLogger(__name__)

WEB_DIR = Path(__file__).parent / "web"
PLACEHOLDER_PAGE = (
    "<!doctype html><title>OpenHands agent server</title>"
    "<p>The agent server is running. The web page is not installed; see "
    '<a href="/docs">/docs</a> for the API.</p>'
)


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """Build the server app; conversations are loaded when it starts (its lifespan)."""
    config = config or ServerConfig.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        pool = BlockingPool(config.max_run_threads, nice=config.worker_nice)
        conversations = ConversationService(config, pool)
        app.state.pool = pool
        app.state.conversations = conversations
        app.state.started_at = time.monotonic()
        app.state.boot_id = str(uuid.uuid4())
        app.state.steps_left_running = 0
        await conversations.load_all()
        try:
            yield
        finally:
            # Bounded: a step stuck in an LLM call must not hold the process for minutes.
            app.state.steps_left_running = await conversations.close_all(
                run_wait=config.shutdown_run_wait_seconds
            )
            pool.shutdown()

    app = FastAPI(
        title="OpenHands agent server",
        summary="Conversations over REST and WebSocket, with background goal loops.",
        version=_version(),
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.config = config
    app.include_router(conversations_router)
    app.include_router(events_router)
    app.include_router(goals_router)
    app.include_router(sockets_router)  # checks the key itself (headers or query)
    _add_service_routes(app)
    add_offline_docs(app)
    app.mount("/static", StaticFiles(directory=WEB_DIR, check_dir=False), name="static")
    # Middleware runs outermost-last-added: the guard sees every request first.
    install_error_handlers(app)
    app.add_middleware(EdgeGuard, config=config)
    return app


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("openhands-agent-server")
    except PackageNotFoundError:
        return "0.0.0"


def _add_service_routes(app: FastAPI) -> None:
    @app.get("/health", response_model=HealthResponse, tags=["server"])
    async def health() -> HealthResponse:
        """The server is up and its event loop answers (no key needed)."""
        return HealthResponse()

    @app.get("/alive", response_model=HealthResponse, tags=["server"])
    async def alive() -> HealthResponse:
        """Liveness probe (no key needed)."""
        return HealthResponse()

    @app.get("/server_info", response_model=ServerInfo, tags=["server"])
    async def server_info(request: Request) -> ServerInfo:
        """Version, uptime, loaded conversations and the ones skipped at start-up."""
        conversations: ConversationService = request.app.state.conversations
        config: ServerConfig = request.app.state.config
        return ServerInfo(
            version=request.app.version,
            boot_id=request.app.state.boot_id,
            uptime_seconds=time.monotonic() - request.app.state.started_at,
            conversations=conversations.count(),
            running_goals=conversations.running_goals,
            auth_enabled=config.auth_enabled,
            broken_conversations=conversations.broken,
            llm_defaults=LLMDefaults(
                model=config.llm_model,
                base_url=config.llm_base_url,
                api_key_set=config.llm_api_key is not None,
            ),
        )

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        page = WEB_DIR / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(PLACEHOLDER_PAGE)
