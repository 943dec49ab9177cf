"""`create_app`: the composition root. It wires the layers together and runs their life cycle.

    api/        HTTP: routes, sockets, the API's models       (imports services, goals)
    services/   the conversations: registry, live, storage     (imports goals)
    goals/      the goal driver and its host protocol          (imports the base below)
    config, auth, errors, blocking: the base every layer may use; the SDK under all of it
    edge/       the HTTP edge (guard, error answers), around every route

On start it configures the agent environment and sandbox, creates the thread pools, reads
the stored settings and the stored conversations' summaries; on stop it closes the open
conversations within a bound. A server started with OH_DEFERRED_INIT does that when POST
/api/init gives it its configuration (or at start, if a previous init was recorded).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from openhands.agent_server.api import LAZY_ROUTERS, ROUTERS
from openhands.agent_server.api.lazy import add_lazy_routers
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.server import ServerInfo, server_info, wants_json
from openhands.agent_server.auth import (
    API_KEY_HEADER,
    MISSING_KEY_MESSAGE,
    SessionKeys,
    key_matches,
)
from openhands.agent_server.blocking import Pools
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.edge.docs import add_offline_docs
from openhands.agent_server.edge.dormant import DormantGate, dormant_message
from openhands.agent_server.edge.error_handlers import install_error_handlers
from openhands.agent_server.edge.guard import EdgeGuard
from openhands.agent_server.edge.openai_errors import OpenAIErrors
from openhands.agent_server.goals.backend import make_goal_backend
from openhands.agent_server.litellm_preload import preload_litellm
from openhands.agent_server.services.bash_events import BashEvents
from openhands.agent_server.services.credentials import Credentials
from openhands.agent_server.services.profile_store import ConversationProfiles
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.agent_server.services.sandboxing import (
    sandbox_policy_of,
    start_sandbox,
    stop_sandbox,
)
from openhands.agent_server.services.sealed_credentials import SealedCredentials
from openhands.agent_server.services.sealing import SecretBox
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.agent_server.services.warm_start import WarmStart
from openhands.sdk.workspace import configure_agent_environment

logger = logging.getLogger(__name__)

WEB_DIR = Path(__file__).parent / "web"
PLACEHOLDER_PAGE = (
    "<!doctype html><title>OpenHands agent server</title>"
    "<p>The agent server is running. The web page is not installed; see "
    '<a href="/docs">/docs</a> for the API.</p>'
)


def create_app(
    config: ServerConfig | None = None, *, credentials: Credentials | None = None
) -> FastAPI:
    """Build the server app; it reads the stored conversations when it starts (lifespan).

    `credentials` gives conversations' LLMs their keys; by default the keys clients send are
    sealed with OH_SECRET_KEY (or the key file, created here if missing), and the stored
    settings and profiles, then LLM_API_KEY, fill in where none was sent. Raises
    `ServerConfigError` if the key is unusable. With OH_DEFERRED_INIT the services start
    only once POST /api/init delivers their configuration (services/warm_start.py).
    """
    config = config or ServerConfig.from_env()
    box = SecretBox.from_config(config)  # the bootstrap key of a dormant server
    sandbox_policy_of(config)  # an unsafe OH_SANDBOX_WRITABLE stops the server here, in words
    keys = SessionKeys(config.session_api_keys)
    running: list[_Running] = []

    app = FastAPI(
        title="OpenHands agent server",
        summary="Conversations over REST and WebSocket, with background goal loops.",
        version=_version(),
        docs_url=None,
        redoc_url=None,
        # One schema per model: answers carry the fields requests do (secrets as null).
        separate_input_output_schemas=False,
    )

    async def activate(initialized: ServerConfig) -> None:
        """Start the services of a dormant server with the configuration its init gave."""
        sealing = await asyncio.to_thread(SecretBox.from_config, initialized)
        app.state.config = initialized
        try:
            started = await _start(app, initialized, sealing, credentials)
        except BaseException:
            app.state.config = config  # still dormant: an init may be tried again
            raise
        running.append(started)
        keys.keys = initialized.session_api_keys
        if initialized.preload_litellm:
            preload_litellm(
                started.pools.runs, initialized, getattr(app.state, "server_settings", None)
            )

    warm_start = WarmStart(config, box, activate) if config.deferred_init else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.started_at = time.monotonic()
        app.state.boot_id = str(uuid.uuid4())
        app.state.steps_left_running = 0
        try:
            if warm_start is None:
                running.append(await _start(app, config, box, credentials))
            else:
                try:
                    await warm_start.restore()
                except Exception as exc:  # logged by the warm start: it stays dormant
                    logger.error("The recorded init could not be applied: %s", exc)
            yield
        finally:
            for started in running:
                app.state.steps_left_running += await _stop(started, config)
            running.clear()

    app.router.lifespan_context = lifespan
    app.state.config = config
    app.state.warm_start = warm_start
    for router in ROUTERS:
        app.include_router(router)
    add_lazy_routers(app, LAZY_ROUTERS)
    _add_page(app, keys)
    add_offline_docs(app)
    app.mount("/static", StaticFiles(directory=WEB_DIR, check_dir=False), name="static")
    # Middleware runs outermost-last-added: the guard sees every request first.
    install_error_handlers(app)
    if warm_start is not None:
        app.add_middleware(DormantGate, warm_start=warm_start)
    app.add_middleware(EdgeGuard, config=config, keys=keys)
    app.add_middleware(OpenAIErrors)  # outermost: it also reshapes the guard's /v1 answers
    return app


@dataclass
class _Running:
    """What `_start` started, for `_stop`."""

    pools: Pools
    conversations: ConversationRegistry
    resealing: asyncio.Future[None] | None
    config: ServerConfig


async def _start(
    app: FastAPI, config: ServerConfig, box: SecretBox, credentials: Credentials | None
) -> _Running:
    """Configure the agent environment and sandbox, create the pools and stores, read the
    conversations."""
    # The agent's terminal, verify and hooks get the variables OH_AGENT_ENV names.
    configure_agent_environment(passthrough=config.agent_env)
    pools = Pools.create(config.max_run_threads, config.control_threads, nice=config.worker_nice)
    try:
        app.state.sandbox = await pools.controls.run(start_sandbox, config)
    except BaseException:
        pools.shutdown()
        raise
    try:
        settings = ServerSettings(config, box)
        await pools.controls.run(settings.load)
        if credentials is None:
            credentials = SealedCredentials(config, box, defaults=settings.llm_defaults)
        # Who interprets goal steps (None: this server); one per server, on the app.
        app.state.goal_backend = goal_backend = make_goal_backend(config)
        conversations = ConversationRegistry(
            config,
            pools,
            credentials,
            secrets=settings.conversation_secrets,
            profiles=ConversationProfiles(settings.profiles),
            goal_backend=goal_backend,
        )
        app.state.pools = pools
        app.state.conversations = conversations
        app.state.server_settings = settings
        app.state.bash_events = BashEvents(
            pools.runs,
            config.workspace_path,
            config.max_bash_events,
            stream_seconds=config.bash_stream_seconds,
        )
        # Thousands of summaries are read at once and kept: collecting garbage meanwhile
        # only costs time, and freezing them keeps later collections short.
        gc.disable()
        try:
            await conversations.load_all()
        finally:
            gc.freeze()
            gc.enable()
    except BaseException:
        pools.shutdown()
        stop_sandbox(config)
        raise
    return _Running(pools, conversations, _reseal_in_background(credentials, pools), config)


async def _stop(started: _Running, config: ServerConfig) -> int:
    """Close the open conversations within a bound; returns how many steps were left running."""
    if started.resealing is not None:
        started.resealing.cancel()
    try:
        # Bounded: a step stuck in an LLM call must not hold the process for minutes.
        return await started.conversations.close_all(run_wait=config.shutdown_run_wait_seconds)
    finally:
        started.pools.shutdown()
        configure_agent_environment(passthrough=None)
        stop_sandbox(started.config)


def _reseal_in_background(
    credentials: Credentials | None, pools: Pools
) -> asyncio.Future[None] | None:
    """With several sealing keys (a rotation), re-seal what an older key sealed."""
    if not isinstance(credentials, SealedCredentials) or credentials.box.key_count < 2:
        return None

    async def reseal() -> None:
        try:
            resealed, unreadable = await pools.controls.run(credentials.reseal_all)
        except Exception as exc:  # e.g. an unreadable folder: each is re-sealed when opened
            logger.warning("Re-sealing the stored conversations failed: %s", exc)
            return
        logger.info(
            "Re-sealed %d conversations with the first key of %s%s",
            resealed,
            credentials.box.source,
            f"; {unreadable} hold keys that no configured key opens" if unreadable else "",
        )

    return asyncio.ensure_future(reseal())


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("openhands-agent-server")
    except PackageNotFoundError:
        return "0.0.0"


def _add_page(app: FastAPI, keys: SessionKeys) -> None:
    @app.get(
        "/",
        tags=["server"],
        response_model=ServerInfo,
        responses={200: {"content": {"text/html": {}}}, **error_responses(503)},
    )
    async def index(request: Request) -> Response:
        """The web page; for a client that asks for JSON (`Accept: application/json`, without
        text/html), the server info, as the reference answers (the key is then needed)."""
        if wants_json(request):
            if not key_matches(request.headers.get(API_KEY_HEADER), keys.keys):
                raise HTTPException(401, MISSING_KEY_MESSAGE)
            warm_start: WarmStart | None = app.state.warm_start
            if warm_start is not None and not warm_start.ready:
                raise HTTPException(503, dormant_message(warm_start.state))
            info = await server_info(request)
            return JSONResponse(info.model_dump(mode="json"))
        page = WEB_DIR / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(PLACEHOLDER_PAGE)
