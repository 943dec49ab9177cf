"""Fetching a skill from its source: a local folder, a git repository or a GitHub URL."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk.context.skill_loading import SkillError
from openhands.sdk.extensions.errors import ExtensionFetchError
from openhands.sdk.extensions.fetch import fetch_source

__all__ = [
    "DEFAULT_SKILL_CACHE_DIR",
    "SkillFetchError",
    "fetch_skill",
    "fetch_skill_with_resolution",
]

DEFAULT_SKILL_CACHE_DIR = Path("~/.openhands/cache/skills")
"""Where git sources of skills are cloned (`~` is expanded when used)."""


class SkillFetchError(ExtensionFetchError, SkillError):
    """A skill's source could not be fetched; the message says why (path, URL, ref, git)."""


def fetch_skill_with_resolution(
    source: str,
    cache_dir: Path | None = None,
    ref: str | None = None,
    update: bool = True,
    repo_path: str | None = None,
) -> tuple[Path, str | None]:
    """The local folder of a skill source and the commit fetched (None for a local folder).

    See `openhands.sdk.extensions.sources` for the accepted sources. Raises SkillFetchError.
    """
    return fetch_source(
        source,
        cache_dir=cache_dir or DEFAULT_SKILL_CACHE_DIR,
        ref=ref,
        update=update,
        repo_path=repo_path,
        error=SkillFetchError,
    )


def fetch_skill(
    source: str,
    cache_dir: Path | None = None,
    ref: str | None = None,
    update: bool = True,
    repo_path: str | None = None,
) -> Path:
    """The local folder of a skill source (see `fetch_skill_with_resolution`)."""
    return fetch_skill_with_resolution(source, cache_dir, ref, update, repo_path)[0]
