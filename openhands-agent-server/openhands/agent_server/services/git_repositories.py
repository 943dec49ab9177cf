"""Repositories a stored provider token can access, for GET /api/git/repositories/search.

Only GitHub is searched (as by the reference): the token is the first stored secret named
`github_token`, `GITHUB_TOKEN`, `GH_TOKEN` or `github` (/api/settings/secrets); without one
the answer is an empty page with `missing_token`. The API is `OH_GITHUB_API_URL`. Pages are
GitHub's own (`page:offset` cursors), filtered by `query` on the full name.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import httpx
from openhands.agent_server.errors import BadRequestError, ServerError
from openhands.sdk.wire.git import GitProvider, GitProviderRepository, GitProviderRepositoryPage

TOKEN_NAMES = ("github_token", "GITHUB_TOKEN", "GH_TOKEN", "github")
"""Stored secrets tried, in order, for the GitHub token."""
PAGE_SIZE = 100
REQUEST_TIMEOUT = 15.0
_LINK = re.compile(r'<([^>]+)>;\s*rel="([^"]+)"')


class ProviderError(ServerError):
    """The provider refused or failed (its status mapped: 401/403 kept, 5xx -> 502)."""

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


async def search_repositories(
    api_url: str,
    token: str | None,
    provider: GitProvider,
    *,
    query: str | None,
    limit: int,
    page_id: str | None,
) -> GitProviderRepositoryPage:
    """One page of the repositories `token` can access, their names holding `query`."""
    if provider is not GitProvider.GITHUB:
        raise BadRequestError(
            f"Repository search is not supported for provider {provider.value!r}; use github."
        )
    if token is None:
        return GitProviderRepositoryPage(items=[], missing_token=True)
    page, offset = _cursor(page_id)
    wanted = query.casefold() if query else None
    headers = {
        "Accept": "application/vnd.github+json",
        "Authorization": f"Bearer {token}",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    items: list[GitProviderRepository] = []
    next_page: str | None = None
    async with httpx.AsyncClient(
        base_url=api_url.rstrip("/"), headers=headers, timeout=REQUEST_TIMEOUT
    ) as client:
        while len(items) < limit:
            response = await _page(client, page)
            found = [_repository(item) for item in response.json() if isinstance(item, dict)]
            if wanted:
                found = [item for item in found if wanted in item.full_name.casefold()]
            found = found[offset:]
            room = limit - len(items)
            items += found[:room]
            if len(found) > room:
                return GitProviderRepositoryPage(
                    items=items, next_page_id=f"{page}:{offset + room}"
                )
            next_page = _next_page(response.headers.get("link"))
            if wanted is None or next_page is None:
                break
            page, offset = int(next_page), 0
    return GitProviderRepositoryPage(items=items, next_page_id=next_page)


async def _page(client: httpx.AsyncClient, page: int) -> httpx.Response:
    params: dict[str, str | int] = {
        "per_page": PAGE_SIZE,
        "page": page,
        "sort": "pushed",
        "affiliation": "owner,collaborator,organization_member",
    }
    try:
        response = await client.get("/user/repos", params=params)
    except httpx.TimeoutException:
        raise ProviderError("GitHub did not answer the repository search in time", 504) from None
    except httpx.HTTPError as exc:
        raise ProviderError(f"GitHub could not be reached: {type(exc).__name__}", 502) from None
    if response.status_code >= 400:
        status = response.status_code
        mapped = status if status in (401, 403) else 502 if status >= 500 else 400
        raise ProviderError(f"GitHub refused the repository search (HTTP {status})", mapped)
    return response


def _cursor(page_id: str | None) -> tuple[int, int]:
    if page_id is None:
        return 1, 0
    raw_page, _, raw_offset = page_id.partition(":")
    try:
        page, offset = int(raw_page), int(raw_offset or 0)
    except ValueError:
        page, offset = 0, -1
    if page < 1 or offset < 0:
        raise BadRequestError(
            f"page_id {page_id!r} is not a cursor of this search; pass a next_page_id it gave"
        )
    return page, offset


def _next_page(link: str | None) -> str | None:
    for url, rel in _LINK.findall(link or ""):
        if rel == "next":
            page = (parse_qs(urlparse(url).query).get("page") or [""])[0]
            return page if page.isdigit() else None
    return None


def _repository(item: dict[str, object]) -> GitProviderRepository:
    stars = item.get("stargazers_count")
    pushed = item.get("pushed_at")
    branch = item.get("default_branch")
    return GitProviderRepository(
        id=str(item.get("id", "")),
        full_name=str(item.get("full_name", "")),
        git_provider=GitProvider.GITHUB.value,
        is_public=not bool(item.get("private", False)),
        stargazers_count=stars if isinstance(stars, int) else None,
        pushed_at=pushed if isinstance(pushed, str) else None,
        main_branch=branch if isinstance(branch, str) else None,
    )
