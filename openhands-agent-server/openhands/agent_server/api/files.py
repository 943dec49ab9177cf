"""REST routes of files: upload, download, make a folder, archive a folder, a conversation's
trajectory, and the folder picker (home, sub-folders).

The reference's paths and shapes, server-wide (`/api/file/...`) and per conversation
(`/api/conversations/{runtime_conversation_id}/file/...`, paths inside its working
directory, else 422). Every read and write goes through `agent_files` with the sandbox's view
of the request's scope (`services/scopes.py`): hidden paths 403 (also behind a symlink or a
`..`), writes only in the workspace and the writable folders (403 elsewhere), missing 404. An
upload is bounded by OH_MAX_BODY_BYTES (413, before it is read). Downloads stream; archives
are made in a private temporary file, sent, then removed.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, Form, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, StreamingResponse
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.api.runtime import (
    FORBIDDEN,
    RUNTIME_PREFIX,
    blocking,
    git_reader,
    runtime_scope,
    scope_for,
)
from openhands.agent_server.errors import BadRequestError, NotFoundError
from openhands.agent_server.services.scopes import Scope, conversation_scope, within
from openhands.sdk.wire import Success
from openhands.sdk.wire.files import (
    ArchiveFormat,
    FileBrowserEntry,
    FileUploadResult,
    HomeResponse,
    SubdirectoryPage,
)
from pydantic import BaseModel, Field
from starlette.background import BackgroundTask

server_router = APIRouter(prefix="/api/file", tags=["files"], route_class=CheckedRoute)
conversation_router = APIRouter(
    prefix=f"{RUNTIME_PREFIX}/file",
    tags=["files"],
    route_class=CheckedRoute,
    dependencies=[Depends(runtime_scope)],  # 422 for a malformed id, 404 for an unknown one
)

BYTES = {
    200: {
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
    }
}
ERRORS = {**error_responses(400, 404), **FORBIDDEN}
WRITE_ERRORS = {**error_responses(400, 404, 413), **FORBIDDEN}


class UploadBody(BaseModel):
    """Body of an upload (multipart/form-data): the file's bytes as the `file` part."""

    file: UploadFile = Field(description="The file's bytes.")


@dataclass(frozen=True)
class Target:
    """A path a file request names, and the scope whose sandbox it is seen with."""

    scope: Scope
    path: Path


def _target_of(request: Request, path: str, *, repository: bool = False) -> Target:
    raw = request.path_params.get("runtime_conversation_id")
    if raw is None:
        checked = within(Scope(Path("/")), path, "path")
        return Target(scope_for(request, str(checked), "path", repository=repository), checked)
    try:
        conversation_id = uuid.UUID(str(raw))
    except ValueError:  # FastAPI runs this even when the router's own check failed
        raise RequestValidationError(
            [{"loc": ("path", "runtime_conversation_id"), "msg": "not a UUID", "type": "uuid"}]
        ) from None
    scope = conversation_scope(request.app.state.conversations, conversation_id)
    return Target(scope, within(scope, path, "path"))


async def _target(
    request: Request, path: Annotated[str, Query(description="An absolute path.")]
) -> Target:
    return _target_of(request, path)


async def _repository_target(
    request: Request, path: Annotated[str, Query(description="The folder (absolute) to archive.")]
) -> Target:
    return _target_of(request, path, repository=True)


Named = Annotated[Target, Depends(_target)]


def _attachment(name: str) -> str:
    return f"attachment; filename*=UTF-8''{quote(name)}"


@server_router.post("/upload", response_model=FileUploadResult, responses=WRITE_ERRORS)
@conversation_router.post("/upload", response_model=FileUploadResult, responses=WRITE_ERRORS)
async def upload_file(
    request: Request, target: Named, body: Annotated[UploadBody, Form()]
) -> FileUploadResult:
    """Write the uploaded file at `path` (its folders made as needed), as the agent could."""
    from openhands.agent_server.services.file_transfers import upload

    limit = request.app.state.config.max_body_bytes
    size = await blocking(request, upload, target.scope, target.path, body.file.file, limit)
    return FileUploadResult(file_size=size)


@server_router.get("/download", response_class=StreamingResponse, responses={**BYTES, **ERRORS})
@conversation_router.get(
    "/download", response_class=StreamingResponse, responses={**BYTES, **ERRORS}
)
async def download_file(request: Request, target: Named) -> StreamingResponse:
    """The bytes of the regular file at `path`."""
    from openhands.agent_server.services.file_transfers import open_download

    opened = await blocking(request, open_download, target.scope, target.path)
    headers = {"Content-Length": str(opened.size), "Content-Disposition": _attachment(opened.name)}
    return StreamingResponse(
        opened.chunks(),
        media_type="application/octet-stream",
        headers=headers,
        background=BackgroundTask(opened.close),
    )


@server_router.post("/create_directory", response_model=Success, responses=ERRORS)
@conversation_router.post("/create_directory", response_model=Success, responses=ERRORS)
async def create_directory(request: Request, target: Named) -> Success:
    """Make the folder at `path` and its missing parents (nothing if it exists)."""
    from openhands.agent_server.services.file_transfers import make_directory

    await blocking(request, make_directory, target.scope, target.path)
    return Success()


@server_router.get(
    "/download-trajectory/{conversation_id}",
    response_class=FileResponse,
    responses={**BYTES, **error_responses(404)},
)
@conversation_router.get(
    "/download-trajectory/{conversation_id}",
    response_class=FileResponse,
    responses={**BYTES, **error_responses(404)},
)
async def download_trajectory(conversation_id: uuid.UUID, request: Request) -> FileResponse:
    """A zip of the conversation's stored state and events (never its sealed secrets)."""
    from openhands.agent_server.services.archives import trajectory_zip

    runtime = request.path_params.get("runtime_conversation_id")
    if runtime is not None and uuid.UUID(str(runtime)) != conversation_id:
        raise RequestValidationError(
            [
                {
                    "loc": ("path", "conversation_id"),
                    "msg": "the trajectory must belong to the selected conversation",
                    "type": "value_error",
                }
            ]
        )
    conversations = request.app.state.conversations
    folder = conversations.path / conversation_id.hex
    if conversation_id not in conversations or not folder.is_dir():
        raise NotFoundError(f"Conversation {conversation_id} does not exist.")
    archive = await blocking(request, trajectory_zip, folder, conversation_id.hex)
    return FileResponse(
        archive.path,
        filename=archive.filename,
        media_type="application/octet-stream",
        background=BackgroundTask(archive.path.unlink, missing_ok=True),
    )


@server_router.get("/archive", response_class=FileResponse, responses={**BYTES, **ERRORS})
@conversation_router.get("/archive", response_class=FileResponse, responses={**BYTES, **ERRORS})
async def archive_directory(
    request: Request,
    target: Annotated[Target, Depends(_repository_target)],
    archive_format: Annotated[
        ArchiveFormat,
        Query(alias="format", description="git-delta (a patch against a base) or tar.gz."),
    ] = "git-delta",
    base_ref: Annotated[
        str | None, Query(description="git-delta only: the ref to diff against.")
    ] = None,
    use_default_excludes: Annotated[
        bool, Query(description="Leave out node_modules/, .venv/, caches, build outputs.")
    ] = True,
    exclude: Annotated[
        list[str] | None, Query(max_length=100, description="More glob patterns to leave out.")
    ] = None,
) -> FileResponse:
    """The folder at `path` (or the one repository below it) as a git patch or a tar.gz."""
    from openhands.agent_server.services import archives

    archives.check_base_ref(base_ref)
    excludes = [*(archives.DEFAULT_EXCLUDES if use_default_excludes else ()), *(exclude or [])]
    root = await blocking(request, _archive_root, target)
    headers: dict[str, str] = {}
    reader = git_reader(request)
    info = await reader.repo_info(target.scope, root)
    if archive_format == "tar.gz":
        archive = await blocking(request, archives.tar_gz, target.scope, root, excludes)
    else:
        output = archives.scratch_file(archives.SUFFIX["git-delta"])
        try:
            base = await reader.delta(target.scope, root, base_ref, excludes, output)
        except BaseException:
            output.unlink(missing_ok=True)
            raise
        archive = archives.Archive(output, f"{root.name}{archives.SUFFIX['git-delta']}")
        if base:
            headers["X-Archive-Base-Commit"] = base
            headers["X-Archive-Base-Ref"] = base_ref or "auto"
    headers.update(_repository_headers(info))
    return FileResponse(
        archive.path,
        filename=archive.filename,
        media_type=archives.MEDIA_TYPE[archive_format],
        headers=headers,
        background=BackgroundTask(archive.path.unlink, missing_ok=True),
    )


def _archive_root(target: Target) -> Path:
    from openhands.agent_server.services.archives import repository_root
    from openhands.agent_server.services.file_transfers import refusal
    from openhands.sdk.workspace.agent_files import agent_files

    files = agent_files(target.scope.workspace)
    try:
        if not files.is_dir(target.path):
            if files.exists(target.path):
                raise BadRequestError(f"path: {target.path} is not a folder")
            raise NotFoundError(f"path: {target.path} does not exist")
    except OSError as exc:
        raise refusal(exc) from None
    return repository_root(files, target.path)


def _repository_headers(info: dict[str, str]) -> dict[str, str]:
    from openhands.sdk.extensions.sources import redact_url

    names = {
        "remote": "X-Archive-Repo-Remote",
        "branch": "X-Archive-Branch",
        "head": "X-Archive-Head-Commit",
        "root": "X-Archive-Repo-Root",
    }
    found = {key: redact_url(value) if key == "remote" else value for key, value in info.items()}
    return {names[key]: quote(value, safe="") for key, value in found.items() if key in names}


# -- the folder picker (server-wide only) -----------------------------------------------------


@server_router.get(
    "/home", response_model=HomeResponse, responses={**error_responses(), **FORBIDDEN}
)
async def get_home(
    request: Request,
    include_hidden: Annotated[bool, Query(description="Also folders named `.*`.")] = False,
) -> HomeResponse:
    """The server user's home folder, the folders in it, and the file system's root."""
    from openhands.agent_server.services.file_transfers import favorites

    home = Path.home()
    scope = scope_for(request, str(home), "home")
    found = await blocking(request, favorites, scope, home, include_hidden)
    return HomeResponse(
        home=str(home), favorites=found, locations=[FileBrowserEntry(label="/", path="/")]
    )


@server_router.get("/search_subdirs", response_model=SubdirectoryPage, responses=ERRORS)
async def search_subdirs(
    request: Request,
    target: Named,
    page_id: Annotated[str | None, Query(description="next_page_id of the last page.")] = None,
    limit: Annotated[int, Query(gt=0, le=100)] = 100,
    include_hidden: Annotated[bool, Query(description="Also folders named `.*`.")] = False,
) -> SubdirectoryPage:
    """The folders directly in `path` (links left out), by name, one page at a time."""
    from openhands.agent_server.services.file_transfers import subdirectories

    def read() -> SubdirectoryPage:
        return subdirectories(
            target.scope,
            target.path,
            page_id=page_id,
            limit=limit,
            include_hidden=include_hidden,
        )

    return await blocking(request, read)


router = APIRouter()
"""Every file route: server-wide and per conversation."""
router.include_router(server_router)
router.include_router(conversation_router)
