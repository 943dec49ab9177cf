"""Installing skills and plugins for the REST routes: the SDK's installers, with the server's
rules around them.

A local source (a folder, `file://`, a local `.git` repository) must be an absolute path the
agent's sandbox may see: the server's own files (its conversations, its key) are refused with
403 before anything is read. The SDK's errors become the reference's statuses: a source that
cannot be fetched 400, one installed already 409 (unless `force`), one that is no skill or
plugin 422. The installers themselves (`openhands.sdk.skills`, `openhands.sdk.plugin`) do the
copying; nothing here reads the files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from openhands.agent_server.errors import (
    BadRequestError,
    ConflictError,
    InvalidRequestError,
    ServerError,
)
from openhands.sdk.extensions.errors import ExtensionFetchError, ExtensionInstallError

T = TypeVar("T")

ALREADY_INSTALLED = "is installed already"
"""The SDK's words for an install refused because the name is taken (see installation.py)."""


def local_source(source: str, loc: tuple[str | int, ...] = ("body", "source")) -> Path | None:
    """The local path a source reads, if it is one (None for a remote git source).

    InvalidRequestError (422 at `loc`) for a relative or `~` path: the server's own
    working folder and home are nobody's business.
    """
    from openhands.sdk.extensions.sources import parse_source

    try:
        parsed = parse_source(source)
    except ExtensionFetchError as exc:
        raise InvalidRequestError(str(exc), loc) from None
    location = parsed.location
    if parsed.kind == "git":
        if not location.startswith("file://"):
            return None
        location = location.removeprefix("file://")
    if not Path(location).is_absolute():
        raise InvalidRequestError("a local source must be an absolute path on the server", loc)
    return Path(location)


def installing(kind: str, action: Callable[[], T]) -> T:
    """Run an SDK install (or refresh) and turn its errors into the routes' statuses."""
    try:
        return action()
    except ExtensionFetchError as exc:
        raise BadRequestError(f"Failed to fetch the {kind} source: {exc}") from None
    except ExtensionInstallError as exc:
        if ALREADY_INSTALLED in str(exc):
            raise ConflictError(f"{exc}. Use force=true to overwrite.") from None
        raise InvalidRequestError(f"Invalid {kind}: {exc}", ("body", "source")) from None
    except (OSError, ValueError) as exc:
        raise InvalidRequestError(f"Invalid {kind}: {exc}", ("body", "source")) from None


def not_installed(kind: str, name: str) -> ServerError:
    """The 404 of a name that is not installed."""
    from openhands.agent_server.errors import NotFoundError

    return NotFoundError(f"{kind.capitalize()} '{name}' is not installed")
