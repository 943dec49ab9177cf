"""`DeclaredResources`: what one tool call touches, so calls of one reply may run at once."""

from __future__ import annotations

from typing import NamedTuple


class DeclaredResources(NamedTuple):
    """The resources one tool call uses, as a tool declares them
    (`ToolDefinition.declared_resources(action)`).

    `declared=False`: the tool did not say, so its calls take turns (one lock per tool).
    `declared=True` with no `keys`: the call shares nothing and takes no lock. Otherwise the
    call holds a lock per key (e.g. `file:/abs/path`) while it runs.
    """

    keys: tuple[str, ...] = ()
    declared: bool = False
