"""Where a skill or plugin comes from: a local folder, a git repository, or a GitHub URL.

Accepted sources:

- a local folder: `/abs/path`, `./rel`, `../rel`, `~/path`, `file:///abs/path`, or a relative
  path with a `/` in it;
- `github:owner/repo` (cloned from https://github.com/owner/repo.git);
- a git URL: `https://...`, `http://...`, `ssh://...`, `git://...`, `git@host:path`, or a
  `file://` URL ending in `.git` (a local repository, cloned like a remote one);
- in a marketplace, `https://github.com/owner/repo/blob/<ref>/<path>` (or `/tree/`): the
  folder `<path>` of that repository at `<ref>`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal, NamedTuple

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.extensions.errors import ExtensionFetchError

__all__ = [
    "GitHubURLComponents",
    "ParsedSource",
    "is_local_path",
    "parse_github_url",
    "parse_source",
    "redact_url",
    "validate_source_path",
]

GITHUB_URL_PATTERN = re.compile(
    r"^https://github\.com/(?P<owner>[^/]+)/(?P<repo>[^/]+?)/(?:blob|tree)/"
    r"(?P<branch>[^/]+)/(?P<path>.+?)/?$"
)
_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:[^/].*")
_GIT_SCHEMES = ("https://", "http://", "ssh://", "git://", "git+ssh://")
_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]+@")


class GitHubURLComponents(NamedTuple):
    """The parts of a `https://github.com/<owner>/<repo>/blob|tree/<branch>/<path>` URL."""

    owner: str
    repo: str
    branch: str
    path: str


class ParsedSource(NamedTuple):
    """A source, classified: a local folder (`location` is the path) or a git repository
    (`location` is the clone URL, `ref` and `subpath` what the source itself names)."""

    kind: Literal["local", "git"]
    location: str
    ref: str | None = None
    subpath: str | None = None


def parse_github_url(url: str) -> GitHubURLComponents | None:
    """The parts of a GitHub blob/tree URL, or None for any other string."""
    match = GITHUB_URL_PATTERN.match(url.strip())
    if match is None:
        return None
    return GitHubURLComponents(
        match["owner"], match["repo"].removesuffix(".git"), match["branch"], match["path"]
    )


def is_local_path(source: str) -> bool:
    """Whether `source` names a local folder (see the module docstring)."""
    text = source.strip()
    if text.startswith("file://"):
        return not text.rstrip("/").endswith(".git")
    return text.startswith(("/", "./", "../", "~")) or text in (".", "..")


def _is_git_url(text: str) -> bool:
    if text.startswith(_GIT_SCHEMES):
        return True
    if text.startswith("file://") and text.rstrip("/").endswith(".git"):
        return True
    return bool(_SCP_LIKE.match(text))


def parse_source(source: str) -> ParsedSource:
    """Classify `source`; raises ExtensionFetchError for a string that is none of them."""
    text = source.strip()
    if not text:
        raise ExtensionFetchError(
            "The source is empty: give a folder, a git URL or github:owner/repo"
        )
    if text.startswith("github:"):
        owner_repo = text.removeprefix("github:").strip("/")
        if owner_repo.count("/") != 1 or not all(owner_repo.split("/")):
            raise ExtensionFetchError(
                f"Invalid GitHub source {source!r}: write it as github:owner/repo"
            )
        return ParsedSource("git", f"https://github.com/{owner_repo}.git")
    github = parse_github_url(text)
    if github is not None:
        url = f"https://github.com/{github.owner}/{github.repo}.git"
        return ParsedSource("git", url, ref=github.branch, subpath=github.path)
    if is_local_path(text):
        return ParsedSource("local", text.removeprefix("file://"))
    if _is_git_url(text):
        return ParsedSource("git", text)
    if "/" in text and "://" not in text:
        return ParsedSource("local", text)  # a relative path such as plugins/mine
    raise ExtensionFetchError(
        f"Cannot tell what source {redact_url(source)!r} is: give a folder (/path, ./path, "
        "~/path), a git URL (https://..., git@host:repo.git) or github:owner/repo"
    )


def validate_source_path(source: str) -> str:
    """`source` if it is a local path or a GitHub blob/tree URL; else ValueError."""
    if is_local_path(source) or parse_github_url(source) is not None:
        return source
    raise InvalidArgumentError(
        f"Invalid source {source!r}: give a local path (./x, /x, ~/x, file:///x) or a GitHub "
        "URL (https://github.com/owner/repo/blob/main/path)"
    )


def local_path(location: str, base_path: Path | None = None) -> Path:
    """A local source's absolute path (relative ones against `base_path`, else the cwd)."""
    path = Path(location).expanduser()
    if not path.is_absolute() and base_path is not None:
        path = base_path / path
    return path.resolve()


def redact_url(text: str) -> str:
    """`text` without the `user:password@` part of a URL (tokens live there)."""
    return _CREDENTIALS.sub("***@", text)
