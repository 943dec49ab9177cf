"""The FastAPI application: routes, error handling, the web page and the service life cycle."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from openhands.agent_server.auth import require_api_key
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.conversations.router import router as conversations_router
from openhands.agent_server.conversations.service import ConversationService
from openhands.agent_server.errors import InvalidRequestError, ServerError
from openhands.agent_server.events.router import router as events_router
from openhands.agent_server.events.sockets import router as sockets_router
from openhands.agent_server.goals.router import router as goals_router
from openhands.agent_server.models import (
    ErrorDetail,
    ErrorResponse,
    HealthResponse,
    LLMDefaults,
    ServerInfo,
)
from starlette.exceptions import HTTPException as StarletteHTTPException

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
        app.state.conversations = conversations
        app.state.started_at = time.monotonic()
        await conversations.load_all()
        try:
            yield
        finally:
            await conversations.close_all()
            pool.shutdown()

    app = FastAPI(
        title="OpenHands agent server",
        summary="Conversations over REST and WebSocket, with background goal loops.",
        version=_version(),
        lifespan=lifespan,
    )
    app.state.config = config
    protected = [Depends(require_api_key)]
    app.include_router(conversations_router, dependencies=protected)
    app.include_router(events_router, dependencies=protected)
    app.include_router(goals_router, dependencies=protected)
    app.include_router(sockets_router)  # checks the key itself (headers or query)
    _add_service_routes(app)
    _add_error_handlers(app)
    app.mount("/static", StaticFiles(directory=WEB_DIR, check_dir=False), name="static")
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

    @app.get(
        "/server_info",
        response_model=ServerInfo,
        tags=["server"],
        dependencies=[Depends(require_api_key)],
    )
    async def server_info(request: Request) -> ServerInfo:
        """Version, uptime, loaded conversations and the ones skipped at start-up."""
        conversations: ConversationService = request.app.state.conversations
        config: ServerConfig = request.app.state.config
        return ServerInfo(
            version=request.app.version,
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


def _error(status: int, message: str, detail: Any = None) -> JSONResponse:
    body = ErrorResponse(message=message, detail=message if detail is None else detail)
    return JSONResponse(body.model_dump(mode="json"), status_code=status)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(InvalidRequestError)
    async def invalid(_: Request, exc: InvalidRequestError) -> JSONResponse:
        field = ".".join(str(part) for part in exc.loc)
        detail = [ErrorDetail(loc=list(exc.loc), msg=exc.message, type="value_error")]
        return _error(exc.status_code, f"{field}: {exc.message}", detail)

    @app.exception_handler(ServerError)
    async def server_error(_: Request, exc: ServerError) -> JSONResponse:
        return _error(exc.status_code, exc.message, exc.code)

    @app.exception_handler(RequestValidationError)
    async def validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        # Never echo the input back: it may hold an API key.
        details = [
            ErrorDetail(
                loc=list(err.get("loc", ())),
                msg=str(err.get("msg", "")),
                type=str(err.get("type", "")),
            )
            for err in exc.errors()
        ]
        lines = [f"{'.'.join(str(p) for p in d.loc)}: {d.msg}" for d in details]
        return _error(422, "; ".join(lines) or "invalid request", details)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        response = _error(exc.status_code, str(exc.detail))
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        return _error(500, f"Internal server error ({type(exc).__name__}); see the server log.")
