"""Wire models of the file routes (`/api/file/...` and `/api/conversations/{id}/file/...`).

The shapes are the reference server's: an upload answers `FileUploadResult`, the folder picker
lists `SubdirectoryPage`s and starts from `HomeResponse`. Downloads and archives are bytes
(`application/octet-stream`, `application/gzip`, `text/x-patch`), not JSON.
"""

from __future__ import annotations

from typing import Literal

from openhands.sdk.wire.base import WireAnswer
from pydantic import Field

ArchiveFormat = Literal["git-delta", "tar.gz"]
"""`git-delta`: a patch of the work tree against a base; `tar.gz`: the files themselves."""


class FileUploadResult(WireAnswer):
    """The answer of an upload."""

    success: bool = True
    file_size: int = Field(description="Bytes written.")


class SubdirectoryEntry(WireAnswer):
    """One sub-folder."""

    name: str
    path: str = Field(description="Its absolute path (usable as a working_dir).")


class SubdirectoryPage(WireAnswer):
    """One page of GET /api/file/search_subdirs."""

    items: list[SubdirectoryEntry]
    next_page_id: str | None = Field(
        default=None, description="The name starting the next page; null on the last."
    )


class FileBrowserEntry(WireAnswer):
    """A place a folder picker offers."""

    label: str
    path: str


class HomeResponse(WireAnswer):
    """The answer of GET /api/file/home: where a folder picker starts."""

    home: str
    favorites: list[FileBrowserEntry] = Field(default_factory=list)
    locations: list[FileBrowserEntry] = Field(default_factory=list)
