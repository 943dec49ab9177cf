"""The tool packages installed: the `openhands.tools` entry-point group.

A package declares its tools in its pyproject.toml (`[project.entry-points."openhands.tools"]`:
`name = "module:ToolClass"`, `"module:factory"`, or a module that calls `register_tool` when
imported). Nothing here is imported before a name asks for it, so importing the SDK never
imports a tool package, and the SDK does not know which tool packages exist.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

ENTRY_POINT_GROUP = "openhands.tools"
"""The entry-point group a package declares its tools in (name -> class or factory)."""

logger = logging.getLogger(__name__)


def declared_names() -> set[str]:
    """Every tool name an installed package declares."""
    from importlib import metadata  # lazily: it costs ~15 ms, and import must stay cheap

    return {entry.name for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def load_declared(name: str | None = None) -> Iterator[tuple[str, Any]]:
    """`(name, what it names)` for each entry point declared under `name` (all if None),
    loading its module. One that fails to load is logged and skipped: a broken third-party
    package must not hide the others."""
    from importlib import metadata

    selected = (
        metadata.entry_points(group=ENTRY_POINT_GROUP)
        if name is None
        else metadata.entry_points(group=ENTRY_POINT_GROUP, name=name)
    )
    for entry in selected:
        try:
            yield entry.name, entry.load()
        except Exception as exc:
            logger.warning(
                "Tool entry point %r (%s) failed to load: %s", entry.name, entry.value, exc
            )


def import_declared_tools() -> None:
    """Import every declared tool package, so the Action and Observation classes it defines
    are known by their kind (used when a stored event names a class that is not loaded)."""
    for _ in load_declared():
        pass
