"""`Scope`: the workspace a git, file or bash request acts in, and so the sandbox it gets.

The per-conversation routes (`/api/conversations/{runtime_conversation_id}/git/...`) act in
that conversation's working directory, and every path they name must lie inside it (a 422
naming the field, as the reference answers). The server-wide routes (`/api/git/...`) take any
absolute path the key holder names, as the reference does, but see what the agent's sandbox
would: a path inside a conversation's working directory is seen with that conversation's
sandbox; any other path with a sandbox of its own folder; a path the server hides from every
agent (its conversations folder, its key file) is refused with 403 before anything runs.
Nothing here opens a conversation: a stored one is known by its summary.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from openhands.agent_server.config import ServerConfig
from openhands.agent_server.errors import ForbiddenError, InvalidRequestError, NotFoundError
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.sdk.workspace.file_errors import HiddenPathError


@dataclass(frozen=True)
class Scope:
    """Where a request acts: `workspace` is the sandbox's workspace (its writable folder) and
    `conversation_id` the conversation it belongs to (None: a server-wide request outside
    every conversation)."""

    workspace: Path
    conversation_id: uuid.UUID | None = None
    confined: bool = False
    """Whether paths must lie inside `workspace` (the per-conversation routes)."""


def working_dir_of(registry: ConversationRegistry, conversation_id: uuid.UUID) -> str:
    """A conversation's working directory, open or stored; NotFoundError if unknown."""
    live = registry.find(conversation_id)
    if live is not None and conversation_id in registry:
        return live.working_dir
    summary = registry.catalog.summary(conversation_id)
    if summary is None or conversation_id not in registry:
        raise NotFoundError(f"Conversation {conversation_id} does not exist.")
    return summary.workspace.working_dir


def conversation_scope(registry: ConversationRegistry, conversation_id: uuid.UUID) -> Scope:
    """The scope of the per-conversation routes of `conversation_id` (404 if unknown)."""
    folder = Path(os.path.realpath(working_dir_of(registry, conversation_id)))
    return Scope(folder, conversation_id, confined=True)


def server_scope(
    registry: ConversationRegistry,
    config: ServerConfig,
    path: Path,
    *,
    field: str,
    repository: bool = False,
) -> Scope:
    """The scope of a server-wide request about `path` (absolute; see the module docstring).

    Outside every conversation the sandbox's workspace is `path` itself or, with
    `repository`, the root of the git repository holding it. ForbiddenError (403) for a path
    every agent's sandbox hides.
    """
    real = Path(os.path.realpath(path))
    _refuse_server_files(real, field)
    owner = _owner(registry, real)
    if owner is not None:
        cid, folder = owner
        scope = Scope(folder, cid)
    else:
        scope = Scope(_repository_of(real) if repository else _existing(real))
    if hidden_test(scope.workspace)(real):  # e.g. a secret inside the owner's workspace
        raise ForbiddenError(
            f"{field}: {path} is hidden from the agent: it belongs to the server or to "
            "another conversation's workspace."
        )
    return scope


def hidden_test(workspace: Path) -> Callable[[str | Path], bool]:
    """Whether the sandbox of `workspace` hides a path (links followed), as the agent's
    own file tools see it (`agent_files`); made once per request."""
    from openhands.sdk.workspace.agent_files import agent_files

    files = agent_files(workspace)

    def hidden(path: str | Path) -> bool:
        try:
            files.exists(path)
        except HiddenPathError:
            return True
        except (OSError, ValueError):  # unreadable or malformed: not a hidden one
            return False
        return False

    return hidden


def within(scope: Scope, path: str, field: str, *, location: str = "query") -> Path:
    """`path` as an absolute path the scope allows; InvalidRequestError naming `field` if not.

    Per-conversation scopes take only paths inside their workspace (links resolved), as the
    reference's runtime routes do.
    """
    if "\x00" in path:
        raise InvalidRequestError("must not contain a NUL byte", (location, field))
    given = Path(path)
    if not given.is_absolute():
        raise InvalidRequestError("must be an absolute path", (location, field))
    if scope.confined:
        real = Path(os.path.realpath(given))
        if not real.is_relative_to(scope.workspace):
            raise InvalidRequestError(
                f"must be inside the conversation workspace {scope.workspace}", (location, field)
            )
    return given


def _refuse_server_files(real: Path, field: str) -> None:
    """ForbiddenError for the server's own files (its conversations, key, settings), which
    every sandbox hides: also when the path would be a sandbox's own workspace."""
    from openhands.sdk.workspace.sandbox import sandbox_policy

    policy = sandbox_policy()
    if policy.mode == "off":
        return  # no sandbox: the agent sees every file, and so do these routes
    for hidden in policy.hidden:
        secret = Path(os.path.realpath(hidden))
        if real == secret or real.is_relative_to(secret):
            raise ForbiddenError(
                f"{field}: {real} belongs to the server (its conversations, key or settings), "
                "which no agent may see."
            )


def _owner(registry: ConversationRegistry, path: Path) -> tuple[uuid.UUID, Path] | None:
    """The conversation whose working directory holds `path` (the deepest), if any."""
    best: tuple[uuid.UUID, Path] | None = None
    for cid, working_dir in registry.working_dirs().items():
        folder = Path(os.path.realpath(working_dir))
        if path.is_relative_to(folder) and (best is None or len(folder.parts) > len(best[1].parts)):
            best = (cid, folder)
    return best


def _existing(path: Path) -> Path:
    """The nearest existing folder at or above `path` (a folder to be made lies inside it)."""
    folder = path
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    return folder


def _repository_of(path: Path) -> Path:
    """The nearest existing folder at or above `path`, raised to the repository root that
    holds it (so git inside its sandbox sees the whole repository)."""
    folder = path
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    probe = folder
    while probe != probe.parent:
        if os.path.lexists(probe / ".git"):
            return probe
        probe = probe.parent
    return folder
