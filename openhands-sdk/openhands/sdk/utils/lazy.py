"""Names a module exports but loads on first use (PEP 562), to keep `import openhands.sdk` cheap.

A package lists its rarely used or heavy names and the module defining each; the module's
`__getattr__` imports that module when the name is first read and keeps the value, so the
next read is a plain global. Type checkers see the names through `TYPE_CHECKING` imports.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_exports", "moved_module"]


def lazy_exports(
    module: str, names: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `module`, loading each of `names` from its module.

    `names` maps an exported name to the absolute name of the module that defines it. Use it
    at the end of the package: `__getattr__, __dir__ = lazy_exports(__name__, {...})`.
    """
    namespace = sys.modules[module].__dict__
    lazy = dict(names)

    def __getattr__(name: str) -> Any:
        source = lazy.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(import_module(source), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(lazy))

    return __getattr__, __dir__


def moved_module(module: str, target: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `module`, an old import path whose code moved to `target`.

    Every name read from the old module is `target`'s (loaded on that first read), so old
    imports keep working while nothing of the old package depends on the new place until such
    a read. Use it as the whole body of the old module:
    `__getattr__, __dir__ = moved_module(__name__, "new.place")`.
    """
    namespace = sys.modules[module].__dict__

    def __getattr__(name: str) -> Any:
        value = getattr(import_module(target), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(dir(import_module(target))))

    return __getattr__, __dir__
