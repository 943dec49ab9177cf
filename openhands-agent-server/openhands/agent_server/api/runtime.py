"""Dependencies of the routes that act on files and commands: the `Scope` a request acts in.

`/api/conversations/{runtime_conversation_id}/...` (the reference's per-conversation forms of
the git, bash and file routes) act in that conversation's working directory: 404 for an
unknown conversation, and every path must lie inside it. The server-wide forms resolve the
scope from the path they name (`services/scopes.py`).
"""

from __future__ import annotations

import uuid
from pathlib import Path

from fastapi import Request
from openhands.agent_server.services.scopes import Scope, conversation_scope, server_scope
from starlette.requests import HTTPConnection

RUNTIME_PREFIX = "/api/conversations/{runtime_conversation_id}"
"""The prefix of the per-conversation forms."""

FORBIDDEN = {
    403: {
        "description": "The path is one the agent's sandbox hides (the server's own files), "
        "or one it may not write."
    }
}
"""The OpenAPI entry of a route that refuses hidden paths."""


async def runtime_scope(runtime_conversation_id: uuid.UUID, request: Request) -> Scope:
    """The scope of the conversation in the path; 404 if it does not exist."""
    return conversation_scope(request.app.state.conversations, runtime_conversation_id)


def scope_for(request: HTTPConnection, path: str, field: str, *, repository: bool = False) -> Scope:
    """The scope of a server-wide request about `path` (absolute; 403 if hidden); with
    `repository`, its sandbox holds the whole git repository around `path`."""
    return server_scope(
        request.app.state.conversations,
        request.app.state.config,
        Path(path),
        field=field,
        repository=repository,
    )
