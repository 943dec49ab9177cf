"""`LazyRouter`: a group of routes whose module is imported on its first request.

The server's start loads only what every request needs; a route family that a client may
never call (the LLM catalogue, agent profiles, the Responses API...) costs nothing until
then. Each group names its module (which defines `router`, an `APIRouter`) and the path
prefixes its routes live under. In the app's route list a group stands where the router
would: a request whose path starts with one of the prefixes, and that no earlier route
matched, imports the module once and is routed through the router as if it had been
included eagerly (405s and path parameters alike). /openapi.json imports every group, so the
API description is whole.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, FastAPI
from starlette.routing import BaseRoute, Match
from starlette.types import Receive, Scope, Send


@dataclass(frozen=True)
class LazyRouter:
    """A router module loaded on first use: `module` defines `router`, whose paths all start
    with one of `prefixes`."""

    module: str
    prefixes: tuple[str, ...]


class LazyRoutes(BaseRoute):
    """The app's route for a `LazyRouter`: matches nothing outside its prefixes, and routes
    the rest through the router, importing its module the first time."""

    def __init__(self, group: LazyRouter) -> None:
        self.group = group
        self._lock = threading.Lock()
        self._holder: APIRouter | None = None

    def load(self) -> APIRouter:
        """The router of the group, its module imported on the first call."""
        holder = self._holder
        if holder is None:
            with self._lock:
                holder = self._holder
                if holder is None:
                    module = importlib.import_module(self.group.module)
                    holder = APIRouter()
                    holder.include_router(module.router)
                    self._holder = holder
        return holder

    @property
    def loaded(self) -> bool:
        """Whether the module has been imported."""
        return self._holder is not None

    def routes(self) -> list[BaseRoute]:
        """The group's routes (importing its module)."""
        return list(self.load().routes)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        """Match the request against the group's routes, if its path is under a prefix."""
        if scope["type"] != "http" or not scope["path"].startswith(self.group.prefixes):
            return Match.NONE, {}
        best: tuple[Match, Scope, BaseRoute] | None = None
        for route in self.load().routes:
            match, child_scope = route.matches(scope)
            if match == Match.FULL:
                return Match.FULL, {**child_scope, _SELECTED: route}
            if match == Match.PARTIAL and best is None:
                best = (match, child_scope, route)
        if best is None:
            return Match.NONE, {}
        return best[0], {**best[1], _SELECTED: best[2]}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Hand the request to the route `matches` selected."""
        route: BaseRoute = scope.pop(_SELECTED)
        await route.handle(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> Any:
        """Only for loaded groups: building a URL must not import a module."""
        from starlette.routing import NoMatchFound

        if self._holder is None:
            raise NoMatchFound(name, path_params)
        return self._holder.url_path_for(name, **path_params)


_SELECTED = "openhands.lazy_route"
"""The scope key carrying the route a group matched, from `matches` to `handle`."""


def add_lazy_routers(app: FastAPI, groups: Iterable[LazyRouter]) -> list[LazyRoutes]:
    """Add a route per group to `app` (after the routes added so far), and make the app's
    OpenAPI description load every group first."""
    added = [LazyRoutes(group) for group in groups]
    app.router.routes.extend(added)
    describe: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        routes = app.router.routes
        # FastAPI describes the routes it is given; the groups are expanded for that call
        # only (it runs between requests, so no request sees the list swapped).
        app.router.routes = [
            inner
            for route in routes
            for inner in (route.routes() if isinstance(route, LazyRoutes) else [route])
        ]
        try:
            return describe()
        finally:
            app.router.routes = routes

    app.openapi = openapi  # type: ignore[method-assign]
    return added
