"""Routes of the warm-pool start: GET and POST /api/init (services/warm_start.py).

`GET /api/init` needs no key (a pool polls it; it tells only the state). `POST /api/init`
needs the bootstrap key in `X-Init-API-Key` (the server's OH_SECRET_KEY, or a key of its key
file), not a session key: a dormant server has none yet. On a server started without
OH_DEFERRED_INIT both answer 404.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, HTTPException, Request, status
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.errors import NotFoundError
from openhands.agent_server.services.warm_start import (
    INIT_KEY_HEADER,
    InitRequest,
    InitStatus,
    WarmStart,
)

router = APIRouter(prefix="/api/init", tags=["init"], route_class=CheckedRoute)


def _warm_start(request: Request) -> WarmStart:
    warm_start: WarmStart | None = getattr(request.app.state, "warm_start", None)
    if warm_start is None:
        raise NotFoundError(
            "This server was not started with OH_DEFERRED_INIT=true, so it has no init to do."
        )
    return warm_start


@router.get("", response_model=InitStatus, responses=error_responses(404))
async def get_init_status(request: Request) -> InitStatus:
    """`dormant`, `initializing` or `ready`, and why the last init failed (no key needed)."""
    return _warm_start(request).status()


def _check_init_key(
    request: Request, init_key: Annotated[str | None, Header(alias=INIT_KEY_HEADER)] = None
) -> None:
    """401 unless the bootstrap key is given (checked before the body is validated)."""
    if not _warm_start(request).authorized(init_key):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            f"Missing or invalid {INIT_KEY_HEADER} header: give the server's bootstrap key "
            "(its OH_SECRET_KEY).",
        )


@router.post(
    "",
    response_model=InitStatus,
    responses=error_responses(400, 404, *STORAGE),
    dependencies=[Depends(_check_init_key)],
)
async def initialize(body: InitRequest, request: Request) -> InitStatus:
    """Deliver the runtime configuration and start the services; answered once ready.

    401 without the bootstrap key; 400 if the server was initialized already; 422 naming
    the setting that is not valid (the server then stays dormant, and can be initialized).
    """
    return await _warm_start(request).initialize(body)
