"""The tool registry: resolves a `Tool` spec by name to tool definitions.

Tools come from two places: `register_tool(...)` calls, and the `openhands.tools` entry-point
group of installed packages (`[project.entry-points."openhands.tools"]` in a pyproject.toml:
`name = "module:ToolClass"`, `"module:factory"`, or a module that calls `register_tool`). An entry point is loaded only when its
name is first resolved, so importing the SDK never imports a tool package, and the SDK does
not know which tool packages exist. An explicit `register_tool` wins over an entry point.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, cast

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.tool.tool import Tool, ToolContext, ToolDefinition

ToolFactory = Callable[..., Sequence[ToolDefinition]]

ENTRY_POINT_GROUP = "openhands.tools"
"""The entry-point group a package declares its tools in (name -> class or factory)."""

logger = logging.getLogger(__name__)


class InvalidToolSpecError(OpenHandsError, ValueError):
    """A tool spec names no registered tool, or gives params the tool cannot be built with."""


class UnknownToolError(InvalidToolSpecError):
    """No tool is registered under the requested name."""


_lock = threading.Lock()
_factories: dict[str, ToolFactory] = {}


def register_tool(name: str, factory: type[ToolDefinition] | ToolFactory) -> None:
    """Register a tool class (or a `factory(context, **params)`) under `name`.

    A ToolDefinition subclass is also reachable by its class name and its `name`.
    """
    if not name:
        raise ValueError("register_tool needs a non-empty name")
    names = {name}
    if isinstance(factory, type) and issubclass(factory, ToolDefinition):
        names |= {factory.__name__, factory.name}
        make: ToolFactory = factory.create
    else:
        make = factory
    with _lock:
        for key in names:
            _factories[key] = make


def registered_tools() -> list[str]:
    """Every name a tool can be resolved by (registered or declared as an entry point), sorted."""
    from importlib import metadata  # lazily: it costs ~15 ms, and import must stay cheap

    declared = {entry.name for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    with _lock:
        return sorted(declared | set(_factories))


def resolve_tool(spec: Tool | dict[str, Any], context: ToolContext) -> list[ToolDefinition]:
    """Build the tool definitions a spec names, for one conversation."""
    tool = spec if isinstance(spec, Tool) else Tool.model_validate(spec)
    with _lock:
        factory = _factories.get(tool.name)
    if factory is None:
        factory = _load_entry_point(tool.name)
    if factory is None:
        known = ", ".join(registered_tools()) or "none"
        raise UnknownToolError(
            f"No tool registered as {tool.name!r}. Registered: {known}. Install the package "
            "that declares it (entry-point group 'openhands.tools') or call register_tool()."
        )
    try:
        return list(factory(context, **tool.params))
    except TypeError as exc:
        # Params the factory cannot take (`context`, or a null/list where it wants a number)
        # are the spec's fault, like a value the factory refuses.
        raise InvalidToolSpecError(
            f"Tool {tool.name!r} cannot be built with params {sorted(tool.params)}: {exc}"
        ) from exc
    except ValueError as exc:
        raise InvalidToolSpecError(f"Tool {tool.name!r}: {exc}") from exc


def _load_entry_point(name: str) -> ToolFactory | None:
    """Load and register the tool an installed package declares under `name`, if any."""
    from importlib import metadata

    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP, name=name):
        try:
            target = entry.load()
        except Exception as exc:  # a broken third-party package must not hide the others
            logger.warning("Tool entry point %r (%s) failed to load: %s", name, entry.value, exc)
            continue
        if isinstance(target, ModuleType):  # a module that calls register_tool when imported
            with _lock:
                if name in _factories:
                    return _factories[name]
            logger.warning("Tool entry point %r (%s) registered no such tool", name, entry.value)
            continue
        if not callable(target):
            logger.warning("Tool entry point %r (%s) is not a tool or factory", name, entry.value)
            continue
        register_tool(name, cast("type[ToolDefinition] | ToolFactory", target))
        with _lock:
            return _factories[name]
    return None
