"""The tool registry: resolves a `Tool` spec by name to tool definitions."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from typing import Any

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.tool.tool import Tool, ToolContext, ToolDefinition

ToolFactory = Callable[..., Sequence[ToolDefinition]]


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
    """Every name a tool can be resolved by, sorted."""
    with _lock:
        return sorted(_factories)


def resolve_tool(spec: Tool | dict[str, Any], context: ToolContext) -> list[ToolDefinition]:
    """Build the tool definitions a spec names, for one conversation."""
    tool = spec if isinstance(spec, Tool) else Tool.model_validate(spec)
    _import_known_tool_packages()
    with _lock:
        factory = _factories.get(tool.name)
    if factory is None:
        known = ", ".join(registered_tools()) or "none"
        raise UnknownToolError(
            f"No tool registered as {tool.name!r}. Registered: {known}. "
            "Import the module that defines it or call register_tool()."
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


def _import_known_tool_packages() -> None:
    """Make the standard tools resolvable by name without an explicit import."""
    with contextlib.suppress(ImportError):
        import openhands.tools  # noqa: F401  (registers terminal, file_editor, task)
