"""REST routes for shell commands on the server: what `Workspace(host=...)` uses.

The reference's routes and shapes: `execute_bash_command` runs a command and answers its
`BashOutput`; `start_bash_command` answers a `BashCommand` at once and its output is found
with `bash_events/search` (the reference's `RemoteWorkspace.execute_command` polls it).
Commands run like the agent's terminal and `verify` (see `services/bash_events.py`). Anyone
who may create a conversation may already run commands through its terminal, so these
routes ask for the same session key and nothing more.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.services.bash_events import BashEvents, BashSortOrder
from openhands.sdk.wire import (
    BashCommand,
    BashEventPage,
    BashOutput,
    ExecuteCommandRequest,
    Success,
)

router = APIRouter(prefix="/api/bash", tags=["bash"], route_class=CheckedRoute)


async def _bash_events(request: Request) -> BashEvents:
    return request.app.state.bash_events


Commands = Annotated[BashEvents, Depends(_bash_events)]


@router.post("/execute_bash_command", response_model=BashOutput, responses=error_responses())
async def execute_bash_command(request: ExecuteCommandRequest, commands: Commands) -> BashOutput:
    """Run `command` in `cwd` (default: the workspace folder) and answer when it ends.

    A failing command is an answer with its exit code, not an HTTP error; a timeout kills it
    (exit code 124, `timed_out`).
    """
    return await commands.execute(request)


@router.post("/start_bash_command", response_model=BashCommand, responses=error_responses())
async def start_bash_command(request: ExecuteCommandRequest, commands: Commands) -> BashCommand:
    """Start `command` in the background; its `BashOutput` appears in bash_events/search."""
    return commands.start(request)


@router.get("/bash_events/search", response_model=BashEventPage, responses=error_responses(400))
async def search_bash_events(
    commands: Commands,
    kind__eq: Literal["BashCommand", "BashOutput"] | None = None,
    command_id__eq: uuid.UUID | None = None,
    order__gt: Annotated[int | None, Query(description="Only outputs after this one.")] = None,
    timestamp__gte: datetime | None = None,
    timestamp__lt: datetime | None = None,
    sort_order: BashSortOrder = BashSortOrder.TIMESTAMP,
    page_id: Annotated[str | None, Query(description="next_page_id of the previous page.")] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
) -> Response:
    """Commands and outputs, oldest first (or newest first), one page at a time."""
    items, next_page_id = commands.search(
        kind=kind__eq,
        command_id=command_id__eq,
        order_gt=order__gt,
        since=timestamp__gte,
        before=timestamp__lt,
        sort_order=sort_order,
        page_id=page_id,
        limit=limit,
    )
    page = BashEventPage(items=items, next_page_id=next_page_id)
    return Response(page.model_dump_json(), media_type="application/json")


@router.get(
    "/bash_events/{event_id}",
    response_model=BashCommand | BashOutput,
    responses=error_responses(404),
)
async def get_bash_event(event_id: str, commands: Commands) -> Response:
    """One command or output by id."""
    event = commands.get(event_id)
    return Response(event.model_dump_json(), media_type="application/json")


@router.post(
    "/bash_commands/{command_id}/stop",
    response_model=Success,
    responses=error_responses(404, 409),
)
async def stop_bash_command(command_id: uuid.UUID, commands: Commands) -> Success:
    """Succeed for a command that has ended; 404 for one never run here; 409 while it runs
    (it cannot be stopped early yet: it is killed at its timeout)."""
    commands.stop(command_id)
    return Success()
