"""Turn any source (see `sources.py`) into a local folder: as it is, or from a git clone."""

from __future__ import annotations

import logging
from pathlib import Path

from openhands.sdk.extensions.confinement import subfolder
from openhands.sdk.extensions.errors import ExtensionFetchError, ExtensionInstallError
from openhands.sdk.extensions.git import fetch_repository
from openhands.sdk.extensions.sources import local_path, parse_source, redact_url

__all__ = ["fetch_source", "resolve_source_path"]

logger = logging.getLogger(__name__)


def fetch_source(
    source: str,
    *,
    cache_dir: Path | None = None,
    ref: str | None = None,
    update: bool = True,
    repo_path: str | None = None,
    base_path: Path | None = None,
    error: type[ExtensionFetchError] = ExtensionFetchError,
) -> tuple[Path, str | None]:
    """The local folder of `source` and, for a git source, the commit checked out.

    A local folder is used where it is (relative paths against `base_path`, else the
    current directory; relative to `base_path`, it must stay inside it); a git source is cloned or updated in the cache at `ref` (or the ref
    a GitHub blob URL names). `repo_path` picks a subfolder (monorepos). Raises `error`.
    """
    try:
        parsed = parse_source(source)
    except ExtensionFetchError as exc:
        raise error(str(exc)) from None
    if parsed.kind == "local":
        folder = local_path(parsed.location, base_path)
        relative = not Path(parsed.location).expanduser().is_absolute()
        if relative and base_path is not None and not folder.is_relative_to(base_path.resolve()):
            raise error(
                f"{source!r} leads out of {base_path} (through '..' or a symbolic link); a "
                "relative source must be a folder inside it"
            )
        if not folder.is_dir():
            raise error(f"{folder} is not a folder (from source {source!r})")
        return _subfolder(folder, repo_path, source, error), None
    folder, commit = fetch_repository(
        parsed.location, cache_dir=cache_dir, ref=ref or parsed.ref, update=update, error=error
    )
    return _subfolder(folder, repo_path or parsed.subpath, source, error), commit


def resolve_source_path(
    source: str,
    base_path: Path | None = None,
    cache_dir: Path | None = None,
    update: bool = True,
) -> Path | None:
    """The local folder of a marketplace `source`, or None (logged) when it cannot be fetched.

    Relative paths are resolved against `base_path` (the marketplace's folder).
    """
    try:
        folder, _ = fetch_source(source, cache_dir=cache_dir, update=update, base_path=base_path)
    except ExtensionFetchError as exc:
        logger.warning("Source %s is unavailable: %s", redact_url(source), exc)
        return None
    return folder


def _subfolder(
    root: Path, subpath: str | None, source: str, error: type[ExtensionFetchError]
) -> Path:
    if not subpath:
        return root
    try:
        folder = subfolder(root, subpath, what=redact_url(source))
    except ExtensionInstallError as exc:
        raise error(str(exc)) from None
    if not folder.is_dir():
        raise error(f"{redact_url(source)} has no folder {subpath!r}")
    return folder
