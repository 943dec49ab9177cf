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

from openhands.sdk.errors import InvalidArgumentError, InvalidArgumentTypeError, OpenHandsError
from openhands.sdk.tool.entry_points import (
    ENTRY_POINT_GROUP,
    declared_names,
    import_declared_tools,
    load_declared,
)
from openhands.sdk.tool.spec import Tool
from openhands.sdk.tool.tool import ToolContext, ToolDefinition

__all__ = [
    "ENTRY_POINT_GROUP",
    "InvalidToolSpecError",
    "ToolFactory",
    "UnknownToolError",
    "list_registered_tools",
    "load_declared_tools",
    "register_tool",
    "registered_tools",
    "resolve_tool",
]

ToolFactory = Callable[..., Sequence[ToolDefinition]]

logger = logging.getLogger(__name__)


class InvalidToolSpecError(OpenHandsError, ValueError):
    """A tool spec names no registered tool, or gives params the tool cannot be built with."""


class UnknownToolError(InvalidToolSpecError):
    """No tool is registered under the requested name."""


_lock = threading.Lock()
_factories: dict[str, ToolFactory] = {}


def register_tool(name: str, factory: type[ToolDefinition] | ToolDefinition | ToolFactory) -> None:
    """Register a tool class, a ready tool instance, or a `factory(context, **params)`.

    A ToolDefinition subclass is also reachable by its class name and its `name`; an
    instance (which must have an executor) is returned as is and takes no params.
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidArgumentError("register_tool needs a non-empty name")
    names = {name}
    make: ToolFactory
    if isinstance(factory, type) and issubclass(factory, ToolDefinition):
        names |= {factory.__name__, factory.name}
        make = factory.create
    elif isinstance(factory, ToolDefinition):
        if factory.executor is None:
            raise InvalidArgumentError(f"Tool instance {name!r} needs an executor to be registered")
        make = _fixed(name, factory)
    elif callable(factory):
        make = factory
    else:
        raise InvalidArgumentTypeError(
            f"register_tool({name!r}, ...) takes a ToolDefinition class or instance, or a "
            f"factory function; got {type(factory).__name__}"
        )
    with _lock:
        for key in names:
            _factories[key] = make


def _fixed(name: str, tool: ToolDefinition) -> ToolFactory:
    def make(context: ToolContext, **params: Any) -> list[ToolDefinition]:
        if params:
            raise InvalidToolSpecError(f"Tool {name!r} is a fixed instance and takes no params")
        return [tool]

    return make


def registered_tools() -> list[str]:
    """Every name a tool can be resolved by (registered or declared as an entry point), sorted."""
    declared = declared_names()
    with _lock:
        return sorted(declared | set(_factories))


def list_registered_tools() -> list[str]:
    """Every name a tool can be resolved by (the reference SDK's name for `registered_tools`)."""
    return registered_tools()


def load_declared_tools() -> None:
    """Load every tool package declared in the `openhands.tools` entry-point group (a
    package that fails to load is logged and skipped)."""
    import_declared_tools()


def resolve_tool(spec: Tool | dict[str, Any], context: ToolContext) -> list[ToolDefinition]:
    """Build the tool definitions a spec names, for one conversation.

    `params["response_schema"]` is not passed to the factory: it is attached to the one tool
    the spec builds (structured output; see `ToolDefinition.set_response_schema`).
    """
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
    params = dict(tool.params)
    response_schema = params.pop("response_schema", None)
    try:
        tools = list(factory(context, **params))
        if response_schema is None:
            return tools
        if len(tools) != 1:
            raise InvalidToolSpecError(
                f"response_schema needs a spec that builds exactly one tool; {tool.name!r} "
                f"builds {len(tools)}"
            )
        return [tools[0].set_response_schema(response_schema)]
    except (TypeError, AttributeError) as exc:
        # Params the factory cannot take (`context`, or a null/list where it wants a number)
        # are the spec's fault, like a value the factory refuses; so is a factory asking the
        # context for something it does not have.
        raise InvalidToolSpecError(
            f"Tool {tool.name!r} cannot be built with params {sorted(tool.params)}: {exc}"
        ) from exc
    except ValueError as exc:
        raise InvalidToolSpecError(f"Tool {tool.name!r}: {exc}") from exc


def _load_entry_point(name: str) -> ToolFactory | None:
    """Load and register the tool an installed package declares under `name`, if any."""
    for _, target in load_declared(name):
        if isinstance(target, ModuleType):  # a module that calls register_tool when imported
            with _lock:
                if name in _factories:
                    return _factories[name]
            logger.warning("Tool entry point %r (%s) registered no such tool", name, target)
            continue
        if not callable(target):
            logger.warning("Tool entry point %r (%s) is not a tool or factory", name, target)
            continue
        register_tool(name, cast("type[ToolDefinition] | ToolFactory", target))
        with _lock:
            return _factories[name]
    return None
