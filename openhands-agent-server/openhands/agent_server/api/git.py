"""REST routes that read a user's git repository: changes, one file's diff, commits, a commit's
changes, and the repositories a stored GitHub token can access.

The reference's paths and answers, server-wide (`/api/git/...`, any absolute path) and per
conversation (`/api/conversations/{runtime_conversation_id}/git/...`, paths inside its working
directory). git runs in the sandbox of the folder's workspace (`services/git_reader.py`): a
repository's own configuration runs nothing in the server. A folder that is no repository has
no changes; a bad ref or an unknown commit is a 400.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.api.runtime import (
    FORBIDDEN,
    RUNTIME_PREFIX,
    git_reader,
    runtime_scope,
    scope_for,
)
from openhands.agent_server.errors import BadRequestError, InvalidRequestError
from openhands.agent_server.services.scopes import Scope, within
from openhands.sdk.wire.git import GitChange, GitCommitsPage, GitDiff, GitProvider
from openhands.sdk.wire.git import GitProviderRepositoryPage as RepositoryPage

server_router = APIRouter(prefix="/api/git", tags=["git"], route_class=CheckedRoute)
conversation_router = APIRouter(
    prefix=f"{RUNTIME_PREFIX}/git", tags=["git"], route_class=CheckedRoute
)

SHA = r"^[0-9a-fA-F]{4,64}$"
"""A commit as hex only: a value can never reach git as an option."""
REF_DOC = (
    "A git ref to compare with (e.g. HEAD for `git status`-style changes, or a commit); "
    "default: the branch's upstream, its fork point from origin's default branch, or HEAD."
)
ERRORS = {**error_responses(400, 503), **FORBIDDEN}
RUNTIME_ERRORS = {**error_responses(400, 404, 503), **FORBIDDEN}

RepoPath = Annotated[str, Query(description="Absolute path of the repository folder.")]
FilePath = Annotated[str, Query(description="Absolute path of the file.")]
Ref = Annotated[str | None, Query(description=REF_DOC)]
Commit = Annotated[
    str | None,
    Query(pattern=SHA, description="Diff the change this commit made (exclusive with ref)."),
]
Limit = Annotated[int, Query(ge=1, le=200, description="Most commits to return.")]
Sha = Annotated[str, Path(pattern=SHA, description="The commit (hex).")]
RuntimeScope = Annotated[Scope, Depends(runtime_scope)]


def _around(request: Request, path: str) -> Scope:
    """A server-wide request's scope: its sandbox holds the whole repository around `path`."""
    return scope_for(request, path, "path", repository=True)


def _ref(ref: str | None) -> str | None:
    if ref is not None and (not ref.strip() or ref.startswith("-") or "\x00" in ref):
        raise InvalidRequestError(
            "must name a ref (not empty, not starting with '-')", ("query", "ref")
        )
    return ref


async def _changes(request: Request, scope: Scope, path: str, ref: str | None) -> list[GitChange]:
    return await git_reader(request).changes(scope, within(scope, path, "path"), _ref(ref))


async def _diff(
    request: Request, scope: Scope, path: str, ref: str | None, commit: str | None
) -> GitDiff:
    if ref is not None and commit is not None:
        raise BadRequestError("'ref' and 'commit' are mutually exclusive; give one of them")
    file = within(scope, path, "path")
    if commit is not None:
        return await git_reader(request).commit_diff(scope, file, commit)
    return await git_reader(request).diff(scope, file, _ref(ref))


async def _commits(request: Request, scope: Scope, path: str, limit: int) -> GitCommitsPage:
    return await git_reader(request).commits(scope, within(scope, path, "path"), limit)


async def _commit_changes(request: Request, scope: Scope, path: str, sha: str) -> list[GitChange]:
    return await git_reader(request).commit_changes(scope, within(scope, path, "path"), sha)


# -- server-wide ------------------------------------------------------------------------------


@server_router.get("/changes", response_model=list[GitChange], responses=ERRORS)
async def git_changes(request: Request, path: RepoPath, ref: Ref = None) -> list[GitChange]:
    """The files changed under `path` (and in repositories one level below it)."""
    return await _changes(request, _around(request, path), path, ref)


@server_router.get("/diff", response_model=GitDiff, responses=ERRORS)
async def git_diff(
    request: Request, path: FilePath, ref: Ref = None, commit: Commit = None
) -> GitDiff:
    """The file at the base (`original`) and now (`modified`), or as `commit` changed it."""
    return await _diff(request, _around(request, path), path, ref, commit)


@server_router.get("/commits", response_model=GitCommitsPage, responses=ERRORS)
async def git_commits(request: Request, path: RepoPath, limit: Limit = 50) -> GitCommitsPage:
    """The newest commits reachable from HEAD, newest first."""
    return await _commits(request, _around(request, path), path, limit)


@server_router.get("/commits/{sha}/changes", response_model=list[GitChange], responses=ERRORS)
async def git_commit_changes(request: Request, sha: Sha, path: RepoPath) -> list[GitChange]:
    """The files one commit changed (against its first parent)."""
    return await _commit_changes(request, _around(request, path), path, sha)


@server_router.get(
    "/repositories/search",
    response_model=RepositoryPage,
    responses=error_responses(400, 403, 502, 504),
)
async def search_repositories(
    request: Request,
    provider: Annotated[GitProvider, Query(description="The git provider (github).")],
    query: Annotated[str | None, Query(description="Part of the repository's name.")] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
    page_id: Annotated[str | None, Query(description="next_page_id of the last page.")] = None,
) -> RepositoryPage:
    """Repositories the stored GitHub token (secret github_token, GITHUB_TOKEN, GH_TOKEN or
    github) can access; `missing_token` when there is none."""
    from openhands.agent_server.services.git_repositories import TOKEN_NAMES, search_repositories

    secrets = request.app.state.server_settings.secrets
    token = next((v for v in map(secrets.value, TOKEN_NAMES) if v), None)
    return await search_repositories(
        request.app.state.config.github_api_url,
        token,
        provider,
        query=query,
        limit=limit,
        page_id=page_id,
    )


# -- per conversation -------------------------------------------------------------------------


@conversation_router.get("/changes", response_model=list[GitChange], responses=RUNTIME_ERRORS)
async def conversation_git_changes(
    request: Request, scope: RuntimeScope, path: RepoPath, ref: Ref = None
) -> list[GitChange]:
    """The files changed under `path`, inside the conversation's working directory."""
    return await _changes(request, scope, path, ref)


@conversation_router.get("/diff", response_model=GitDiff, responses=RUNTIME_ERRORS)
async def conversation_git_diff(
    request: Request, scope: RuntimeScope, path: FilePath, ref: Ref = None, commit: Commit = None
) -> GitDiff:
    """One file's two sides, inside the conversation's working directory."""
    return await _diff(request, scope, path, ref, commit)


@conversation_router.get("/commits", response_model=GitCommitsPage, responses=RUNTIME_ERRORS)
async def conversation_git_commits(
    request: Request, scope: RuntimeScope, path: RepoPath, limit: Limit = 50
) -> GitCommitsPage:
    """The newest commits of the repository at `path`."""
    return await _commits(request, scope, path, limit)


@conversation_router.get(
    "/commits/{sha}/changes", response_model=list[GitChange], responses=RUNTIME_ERRORS
)
async def conversation_git_commit_changes(
    request: Request, scope: RuntimeScope, sha: Sha, path: RepoPath
) -> list[GitChange]:
    """The files one commit changed."""
    return await _commit_changes(request, scope, path, sha)


router = APIRouter()
"""Every git route: server-wide and per conversation."""
router.include_router(server_router)
router.include_router(conversation_router)
