"""Wire models of the git routes: what changed in a repository, one file's two sides, commits.

The shapes are the reference server's (`/api/git/changes`, `diff`, `commits`,
`commits/{sha}/changes`, `repositories/search`, and their per-conversation forms under
`/api/conversations/{id}/git/`), so its `RemoteWorkspace.git_changes` / `git_diff` read them.
Paths are POSIX and relative to the folder asked about.
"""

from __future__ import annotations

from enum import StrEnum

from openhands.sdk.wire.base import WireAnswer
from pydantic import Field


class GitChangeStatus(StrEnum):
    """How a file differs from the base (a rename is a DELETED and an ADDED)."""

    MOVED = "MOVED"
    ADDED = "ADDED"
    DELETED = "DELETED"
    UPDATED = "UPDATED"


class GitChange(WireAnswer):
    """One changed file."""

    status: GitChangeStatus
    path: str = Field(description="POSIX path relative to the folder asked about.")


class GitDiff(WireAnswer):
    """Both sides of one file: `original` at the base, `modified` now (or at the commit)."""

    modified: str | None = None
    original: str | None = None


class GitCommit(WireAnswer):
    """One commit of a repository's history."""

    sha: str
    short_sha: str
    subject: str
    author: str
    timestamp: str = Field(description="The author date, ISO 8601 with its UTC offset.")


class GitCommitsPage(WireAnswer):
    """The newest commits reachable from HEAD, newest first."""

    commits: list[GitCommit]
    has_more: bool = Field(description="Whether the history holds more than were asked for.")


class GitProvider(StrEnum):
    """Git hosting providers a repository search may name (only GitHub is searched)."""

    GITHUB = "github"
    GITLAB = "gitlab"
    BITBUCKET = "bitbucket"
    AZURE_DEVOPS = "azure_devops"


class GitProviderRepository(WireAnswer):
    """A repository the provider token can access."""

    id: str
    full_name: str
    git_provider: str
    is_public: bool
    stargazers_count: int | None = None
    pushed_at: str | None = None
    main_branch: str | None = None


class GitProviderRepositoryPage(WireAnswer):
    """One page of GET /api/git/repositories/search."""

    items: list[GitProviderRepository]
    next_page_id: str | None = None
    missing_token: bool = Field(
        default=False, description="True when the server holds no token for the provider."
    )
