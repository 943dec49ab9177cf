"""Reading a package's imports from its source, for the tests that keep its layers."""

from __future__ import annotations

import ast
from pathlib import Path


def imported_modules(
    path: Path, package: str, root: Path, *, names_may_be_modules: bool = False
) -> set[str]:
    """Every module of `package` that `path` (a file under `root`, the package's folder)
    imports, anywhere in the file: under `TYPE_CHECKING`, inside functions, relative ones.

    With `names_may_be_modules`, `from a.b import c` also counts `a.b.c`, since `c` may be a
    module (`from openhands.sdk.conversation import goal`).
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    here = [*package.split("."), *path.relative_to(root).with_suffix("").parts[:-1]]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            names.add(module)
            if names_may_be_modules:
                names.update(f"{module}.{alias.name}" for alias in node.names)
    return {name for name in names if name == package or name.startswith(f"{package}.")}
