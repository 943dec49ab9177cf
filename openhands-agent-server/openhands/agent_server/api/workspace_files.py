"""REST routes that serve a conversation's workspace as static files:
GET /api/conversations/{id}/workspace and /workspace/{file_path}. Loaded on first use
(api/lazy.py)."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Path
from fastapi.responses import StreamingResponse
from openhands.agent_server.api.deps import control_pool, registry
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.agent_server.services.workspace_files import open_workspace_file

router = APIRouter(prefix="/api/conversations", tags=["conversations"], route_class=CheckedRoute)

Registry = Annotated[ConversationRegistry, Depends(registry)]
Controls = Annotated[BlockingPool, Depends(control_pool)]

UNTRUSTED = {
    # What the agent wrote runs as a page of no origin: its scripts cannot read this
    # server's page storage or call the API with a key they find there.
    "Content-Security-Policy": "sandbox allow-scripts allow-forms allow-popups",
    "Cache-Control": "no-store",
}
FILE = {200: {"content": {"application/octet-stream": {}}, "description": "The file."}}


@router.get(
    "/{conversation_id}/workspace",
    response_class=StreamingResponse,
    responses={**error_responses(400, 404), **FILE},
)
async def serve_workspace_root(
    conversation_id: uuid.UUID, conversations: Registry, controls: Controls
) -> StreamingResponse:
    """The workspace's `index.html` (404 if it has none)."""
    return await _serve(conversation_id, "", conversations, controls)


@router.get(
    "/{conversation_id}/workspace/{file_path:path}",
    response_class=StreamingResponse,
    responses={**error_responses(400, 404, 409), **FILE},
)
async def serve_workspace_file(
    conversation_id: uuid.UUID,
    file_path: Annotated[str, Path(max_length=4096, description="Relative to the workspace.")],
    conversations: Registry,
    controls: Controls,
) -> StreamingResponse:
    """A file of the workspace (a folder: its `index.html`), as the agent's sandbox shows it:
    a path leaving the workspace is 400, a hidden or missing one 404. The answer runs as a
    sandboxed page of no origin (Content-Security-Policy `sandbox`)."""
    return await _serve(conversation_id, file_path, conversations, controls)


async def _serve(
    conversation_id: uuid.UUID, file_path: str, conversations: Registry, controls: Controls
) -> StreamingResponse:
    info = await conversations.info(conversation_id)  # nothing is opened
    served = await controls.run(open_workspace_file, info.workspace.working_dir, file_path)
    headers = {**UNTRUSTED, "Content-Length": str(served.size)}
    return StreamingResponse(served.chunks(), media_type=served.media_type, headers=headers)
