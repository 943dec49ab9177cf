"""REST routes for shell commands: what `Workspace(host=...)` uses, server-wide and per
conversation.

The reference's routes and shapes, under `/api/bash` and
`/api/conversations/{runtime_conversation_id}/bash`: `execute_bash_command` runs a command and
answers its whole `BashOutput`; `start_bash_command` answers a `BashCommand` at once, and its
output appears in `bash_events/search` while it runs (the reference's `RemoteWorkspace`
polls it with `order__gt`); `bash_commands/{id}/stop` kills a running one; `DELETE
bash_events` forgets what was kept. Commands run like the agent's terminal (see
`services/bash_events.py`), in the sandbox of their scope: a conversation's commands in its
working directory's sandbox (`cwd` must lie inside it); server-wide ones in the sandbox of the
conversation whose folder holds `cwd`, else of `cwd` itself. Anyone who may create a
conversation may already run commands through its terminal, so these routes ask for the same
session key and nothing more.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.api.runtime import FORBIDDEN, RUNTIME_PREFIX, runtime_scope, scope_for
from openhands.agent_server.services.bash_events import BashEvents, BashSortOrder, ConversationBash
from openhands.agent_server.services.scopes import Scope, within
from openhands.sdk.wire import (
    BashCommand,
    BashEventPage,
    BashOutput,
    ExecuteCommandRequest,
    Success,
)
from pydantic import BaseModel
from starlette.requests import HTTPConnection

AnyBashEvent = BashCommand | BashOutput

server_router = APIRouter(prefix="/api/bash", tags=["bash"], route_class=CheckedRoute)
conversation_router = APIRouter(
    prefix=f"{RUNTIME_PREFIX}/bash",
    tags=["bash"],
    route_class=CheckedRoute,
    dependencies=[Depends(runtime_scope)],  # 422 for a malformed id, 404 for an unknown one
)


class ClearedBashEvents(BaseModel):
    """The answer of DELETE bash_events (the reference's shape)."""

    cleared_count: int


async def _commands(request: Request) -> BashEvents:
    """The server's commands, or (under the conversation prefix) the conversation's own."""
    raw = request.path_params.get("runtime_conversation_id")
    if raw is None:
        return request.app.state.bash_events
    try:
        conversation_id = uuid.UUID(str(raw))
    except ValueError:  # FastAPI runs this even when the router's own check failed
        raise RequestValidationError(
            [{"loc": ("path", "runtime_conversation_id"), "msg": "not a UUID", "type": "uuid"}]
        ) from None
    scope = await runtime_scope(conversation_id, request)
    by_conversation: ConversationBash | None = getattr(request.app.state, "conversation_bash", None)
    if by_conversation is None:
        config = request.app.state.config
        by_conversation = ConversationBash(
            request.app.state.pools.runs, config.max_bash_events, config.bash_stream_seconds
        )
        request.app.state.conversation_bash = by_conversation
    assert scope.conversation_id is not None
    return by_conversation.of(scope.conversation_id, scope.workspace)


Commands = Annotated[BashEvents, Depends(_commands)]
RuntimeScope = Annotated[Scope, Depends(runtime_scope)]
RUN_ERRORS = {**error_responses(), **FORBIDDEN}
RUNTIME_RUN_ERRORS = error_responses(404)


def _server_request(
    request: HTTPConnection, body: ExecuteCommandRequest
) -> tuple[ExecuteCommandRequest, Path]:
    """The command with its folder made absolute, and the workspace of its sandbox (403 for
    a folder the sandbox hides, 422 for one it cannot take as a workspace: `/`, /proc, the
    server's data). Outside every conversation the folder itself is the sandbox's workspace:
    a missing one is made first, as its nearest parent's agent could."""
    from openhands.agent_server.services.file_transfers import make_directory
    from openhands.agent_server.services.sandboxing import refuse_unsafe_workspace

    cwd = body.cwd or str(request.app.state.config.workspace_path.resolve())
    refuse_unsafe_workspace(cwd, ("body", "cwd"))  # before `within`: the reason, not "hidden"
    folder = within(Scope(Path("/")), cwd, "cwd", location="body")
    scope = scope_for(request, str(folder), "cwd")
    workspace = scope.workspace
    if scope.conversation_id is None and workspace != folder:
        make_directory(scope, folder, "cwd")
        workspace = folder
    return body.model_copy(update={"cwd": str(folder)}), workspace


def server_command(connection: HTTPConnection, body: ExecuteCommandRequest) -> BashCommand:
    """Start a server-wide command (for the bash socket): its folder checked like a POST's."""
    checked, workspace = _server_request(connection, body)
    return connection.app.state.bash_events.start(checked, workspace=workspace)


def _conversation_request(scope: Scope, body: ExecuteCommandRequest) -> ExecuteCommandRequest:
    """The command with its folder checked: inside the conversation's working directory."""
    if body.cwd is None:
        return body.model_copy(update={"cwd": str(scope.workspace)})
    return body.model_copy(update={"cwd": str(within(scope, body.cwd, "cwd", location="body"))})


# -- server-wide ------------------------------------------------------------------------------


@server_router.post("/execute_bash_command", response_model=BashOutput, responses=RUN_ERRORS)
async def execute_bash_command(
    request: Request, body: ExecuteCommandRequest, commands: Commands
) -> BashOutput:
    """Run `command` in `cwd` (default: the workspace folder) and answer when it ends.

    A failing command is an answer with its exit code, not an HTTP error; a timeout kills it
    (exit code 124, `timed_out`).
    """
    checked, workspace = _server_request(request, body)
    return await commands.execute(checked, workspace=workspace)


@server_router.post("/start_bash_command", response_model=BashCommand, responses=RUN_ERRORS)
async def start_bash_command(
    request: Request, body: ExecuteCommandRequest, commands: Commands
) -> BashCommand:
    """Start `command` in the background; its output appears in bash_events/search."""
    checked, workspace = _server_request(request, body)
    return commands.start(checked, workspace=workspace)


# -- per conversation -------------------------------------------------------------------------


@conversation_router.post(
    "/execute_bash_command", response_model=BashOutput, responses=RUNTIME_RUN_ERRORS
)
async def conversation_execute_bash_command(
    body: ExecuteCommandRequest, scope: RuntimeScope, commands: Commands
) -> BashOutput:
    """Run `command` in the conversation's sandbox (`cwd` inside its working directory)."""
    return await commands.execute(_conversation_request(scope, body), workspace=scope.workspace)


@conversation_router.post(
    "/start_bash_command", response_model=BashCommand, responses=RUNTIME_RUN_ERRORS
)
async def conversation_start_bash_command(
    body: ExecuteCommandRequest, scope: RuntimeScope, commands: Commands
) -> BashCommand:
    """Start `command` in the conversation's sandbox, in the background."""
    return commands.start(_conversation_request(scope, body), workspace=scope.workspace)


# -- reading and stopping, the same for both --------------------------------------------------


@server_router.get(
    "/bash_events/search", response_model=BashEventPage, responses=error_responses(400)
)
@conversation_router.get(
    "/bash_events/search", response_model=BashEventPage, responses=error_responses(400, 404)
)
async def search_bash_events(
    commands: Commands,
    kind__eq: Literal["BashCommand", "BashOutput"] | None = None,
    command_id__eq: uuid.UUID | None = None,
    order__gt: Annotated[int | None, Query(description="Only outputs after this one.")] = None,
    timestamp__gte: datetime | None = None,
    timestamp__lt: datetime | None = None,
    sort_order: BashSortOrder = BashSortOrder.TIMESTAMP,
    page_id: Annotated[str | None, Query(description="next_page_id of the last page.")] = None,
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


@server_router.get(
    "/bash_events/", response_model=list[AnyBashEvent | None], responses=error_responses()
)
@conversation_router.get(
    "/bash_events/", response_model=list[AnyBashEvent | None], responses=error_responses(404)
)
async def batch_get_bash_events(
    commands: Commands,
    event_ids: Annotated[list[str], Query(max_length=100, description="Event ids.")],
) -> Response:
    """Several commands or outputs by id; null for an id not kept."""
    found = commands.get_many(event_ids)
    body = "[" + ",".join("null" if e is None else e.model_dump_json() for e in found) + "]"
    return Response(body, media_type="application/json")


@server_router.get(
    "/bash_events/{event_id}", response_model=AnyBashEvent, responses=error_responses(404)
)
@conversation_router.get(
    "/bash_events/{event_id}", response_model=AnyBashEvent, responses=error_responses(404)
)
async def get_bash_event(event_id: str, commands: Commands) -> Response:
    """One command or output by id."""
    event = commands.get(event_id)
    return Response(event.model_dump_json(), media_type="application/json")


@server_router.delete("/bash_events", response_model=ClearedBashEvents, responses=error_responses())
@conversation_router.delete(
    "/bash_events", response_model=ClearedBashEvents, responses=error_responses(404)
)
async def clear_bash_events(commands: Commands) -> ClearedBashEvents:
    """Forget every kept command and output (running commands go on)."""
    return ClearedBashEvents(cleared_count=commands.clear())


@server_router.post(
    "/bash_commands/{command_id}/stop", response_model=Success, responses=error_responses(404)
)
@conversation_router.post(
    "/bash_commands/{command_id}/stop", response_model=Success, responses=error_responses(404)
)
async def stop_bash_command(command_id: uuid.UUID, commands: Commands) -> Success:
    """Stop a running command (its whole tree is killed; its last output carries the exit
    code); succeed for one that ended; 404 for one never run here."""
    await commands.stop(command_id)
    return Success()


router = APIRouter()
"""Every bash route: server-wide and per conversation."""
router.include_router(server_router)
router.include_router(conversation_router)
