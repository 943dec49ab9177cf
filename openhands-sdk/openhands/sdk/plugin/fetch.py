"""Fetching a plugin from its source: a local folder, a git repository or github:owner/repo."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk.extensions.errors import ExtensionFetchError
from openhands.sdk.extensions.fetch import fetch_source

__all__ = [
    "DEFAULT_PLUGIN_CACHE_DIR",
    "PluginFetchError",
    "fetch_plugin",
    "fetch_plugin_with_resolution",
]

DEFAULT_PLUGIN_CACHE_DIR = Path("~/.openhands/cache/plugins")
"""Where git sources of plugins are cloned (`~` is expanded when used)."""


class PluginFetchError(ExtensionFetchError):
    """A plugin's source could not be fetched; the message says why (path, URL, ref, git)."""


def fetch_plugin_with_resolution(
    source: str,
    cache_dir: Path | None = None,
    ref: str | None = None,
    update: bool = True,
    repo_path: str | None = None,
) -> tuple[Path, str | None]:
    """The local folder of a plugin source and the commit fetched (None for a folder).

    See `openhands.sdk.extensions.sources` for the accepted sources. Raises PluginFetchError.
    """
    return fetch_source(
        source,
        cache_dir=cache_dir or DEFAULT_PLUGIN_CACHE_DIR,
        ref=ref,
        update=update,
        repo_path=repo_path,
        error=PluginFetchError,
    )


def fetch_plugin(
    source: str,
    cache_dir: Path | None = None,
    ref: str | None = None,
    update: bool = True,
    repo_path: str | None = None,
) -> Path:
    """The local folder of a plugin source (see `fetch_plugin_with_resolution`)."""
    return fetch_plugin_with_resolution(source, cache_dir, ref, update, repo_path)[0]
