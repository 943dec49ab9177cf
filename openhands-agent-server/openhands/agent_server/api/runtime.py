"""Dependencies of the routes that act on files, commands and extensions: the `Scope` a
request acts in, and the services they share (made on first use).

`/api/conversations/{runtime_conversation_id}/...` (the reference's per-conversation forms of
the git, bash and file routes) act in that conversation's working directory: 404 for an
unknown conversation, and every path must lie inside it. The server-wide forms resolve the
scope from the path they name (`services/scopes.py`).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import Request
from openhands.agent_server.services.scopes import Scope, conversation_scope, server_scope, within

if TYPE_CHECKING:  # loaded on first use
    from openhands.agent_server.services.git_reader import GitReader
    from openhands.agent_server.services.skills_catalog import PublicCatalog
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


def project_scope(request: Request, project_dir: str | None) -> Scope | None:
    """The sandbox scope of a project folder a request body names (422 relative, 403 hidden)."""
    if project_dir is None:
        return None
    folder = within(Scope(Path("/")), project_dir, "project_dir", location="body")
    return scope_for(request, str(folder), "project_dir")


def check_source(
    request: Request, source: str, loc: tuple[str | int, ...] = ("body", "source")
) -> None:
    """Refuse a local extension source (at `loc` in the body) the agent's sandbox may not see
    (403), or a relative one (422)."""
    from openhands.agent_server.services.extension_installs import local_source

    path = local_source(source, loc)
    if path is not None:
        scope_for(request, str(path), str(loc[-1]))


async def blocking(request: Request, fn: Any, *args: Any) -> Any:
    """Run blocking work (file reads, git, archives) in a control thread."""
    return await request.app.state.pools.controls.run(fn, *args)


def git_reader(request: Request) -> GitReader:
    """The server's `GitReader` (made on first use)."""
    reader = getattr(request.app.state, "git_reader", None)
    if reader is None:
        from openhands.agent_server.services.git_reader import GitReader

        config = request.app.state.config
        reader = GitReader(request.app.state.pools.controls, config.git_timeout_seconds)
        request.app.state.git_reader = reader
    return reader


def public_catalog(request: Request) -> PublicCatalog:
    """The server's public skills catalog (made on first use)."""
    catalog = getattr(request.app.state, "public_catalog", None)
    if catalog is None:
        from openhands.agent_server.services.skills_catalog import PublicCatalog

        catalog = PublicCatalog(request.app.state.config.public_skills_source)
        request.app.state.public_catalog = catalog
    return catalog
