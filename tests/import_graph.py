"""Reading a package's imports from its source, for the tests that keep its layers.

Every way a module names another module counts: `import` and `from ... import` anywhere in
the file (under `TYPE_CHECKING`, inside functions, relative ones), `importlib.import_module`
and `__import__` called with a literal name, and the tables of `openhands.sdk.utils.lazy`
(`lazy_exports(__name__, {...})`, `moved_module(__name__, "...")`), whose modules load on a
name's first read. A dynamic import whose name is computed cannot be read: `unreadable` lists
it, and a layer test accepts it only where it names the file and says why.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from pathlib import Path

DYNAMIC_IMPORTS = frozenset({"import_module", "__import__"})
"""Calls that import the module their first argument names."""

LAZY_TABLES = frozenset({"lazy_exports", "moved_module"})
"""`openhands.sdk.utils.lazy` helpers: their second argument names the modules they load."""


@dataclass
class Imports:
    """What one file imports, as written (absolute names).

    `modules` are imported whole by a statement (`import a.b`); `from_imports` are the
    `from a import x, y` statements as `(a, [x, y])` (x may be a module of its own); `dynamic`
    the modules of `import_module("...")` and `__import__("...")`; `lazy` those of the lazy
    tables (loaded on a name's first read); `unreadable` the lines of dynamic imports whose
    module cannot be read.
    """

    modules: set[str] = field(default_factory=set)
    from_imports: list[tuple[str, list[str]]] = field(default_factory=list)
    dynamic: set[str] = field(default_factory=set)
    lazy: set[str] = field(default_factory=set)
    unreadable: list[int] = field(default_factory=list)

    def names(self, *, names_may_be_modules: bool, statements_only: bool = False) -> set[str]:
        """Every module named; with `names_may_be_modules`, `a.x` for each `from a import x`;
        with `statements_only`, only what import statements name (what loads with the file
        or its functions, as opposed to a lazy name's first read or a computed import)."""
        found = set(self.modules)
        if not statements_only:
            found |= self.dynamic | self.lazy
        for module, names in self.from_imports:
            found.add(module)
            if names_may_be_modules:
                found.update(f"{module}.{name}" for name in names)
        return found


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _module_level_dicts(tree: ast.Module) -> dict[str, ast.Dict]:
    """`NAME = {...}` (annotated or not) at module level, by NAME."""
    tables: dict[str, ast.Dict] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    tables[target.id] = node.value
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(node.value, ast.Dict)
        ):
            tables[node.target.id] = node.value
    return tables


def _literal(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _table_value(node: ast.AST) -> str | None:
    """A table entry's module: a literal, or `**dict.fromkeys(NAMES, "module")`."""
    if isinstance(node, ast.Call) and _called_name(node) == "fromkeys" and len(node.args) == 2:
        return _literal(node.args[1])
    return _literal(node)


def _lazy_table_modules(call: ast.Call, tables: dict[str, ast.Dict]) -> list[str] | None:
    """The modules a `lazy_exports` / `moved_module` call names, or None if unreadable."""
    if len(call.args) < 2:
        return None
    table = call.args[1]
    if isinstance(table, ast.Name):
        table = tables.get(table.id, table)
    if isinstance(table, ast.Dict):
        modules = [_table_value(value) for value in table.values]
        return None if any(m is None for m in modules) else [m for m in modules if m]
    module = _literal(table)
    return None if module is None else [module]


def parsed(path: Path) -> ast.Module:
    """The syntax tree of the Python file at `path`, parsed once per version of the file in
    a test process (several layer and dependency tests read every module of the packages).
    Shared: read it, never change it."""
    stat = path.stat()
    return _parsed(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4096)
def _parsed(path: Path, mtime_ns: int, size: int) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def read_imports(path: Path, package: str, root: Path) -> Imports:
    """Every module `path` (a file under `root`, the folder of `package`) names; read once
    per version of the file, like `parsed`. Shared: read it, never change it."""
    stat = path.stat()
    return _read_imports(path, package, root, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4096)
def _read_imports(path: Path, package: str, root: Path, mtime_ns: int, size: int) -> Imports:
    tree = _parsed(path, mtime_ns, size)
    parts = path.relative_to(root).with_suffix("").parts
    here = [*package.split("."), *parts[:-1]]
    tables = _module_level_dicts(tree)
    found = Imports()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.from_imports.append((module, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Call):
            name = _called_name(node)
            if name in DYNAMIC_IMPORTS:
                module = _literal(node.args[0]) if node.args else None
                if module is None or module.startswith("."):
                    found.unreadable.append(node.lineno)
                else:
                    found.dynamic.add(module)
            elif name in LAZY_TABLES:
                modules = _lazy_table_modules(node, tables)
                if modules is None:
                    found.unreadable.append(node.lineno)
                else:
                    found.lazy.update(modules)
    return found


def imported_modules(
    path: Path, package: str, root: Path, *, names_may_be_modules: bool = False
) -> set[str]:
    """Every module of `package` that `path` imports, anywhere in the file and by any of the
    ways above.

    With `names_may_be_modules`, `from a.b import c` also counts `a.b.c`, since `c` may be a
    module (`from openhands.sdk.conversation import goal`); without it only `a.b`.
    """
    names = read_imports(path, package, root).names(names_may_be_modules=names_may_be_modules)
    return {name for name in names if name == package or name.startswith(f"{package}.")}


def module_name(path: Path, package: str, root: Path) -> str:
    """The dotted name of the module at `path` (a package's `__init__.py` is the package)."""
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([package, *parts])


def import_graph(
    package: str, root: Path, files: list[Path], *, lazy: bool = False
) -> dict[str, set[str]]:
    """module -> the modules of `package` it imports: statements and dynamic imports, and
    with `lazy` the lazy tables too.

    `from a import x` is an arrow to the module `a.x` when there is one, else to `a`. The
    parent packages Python runs before a module are no arrows: they have run before any
    module of theirs does. A lazy table is left out by default: it hands on names, read once
    both modules are loaded (an old path forwarding to its new home is one), so it ties no
    loop of loading.
    """
    paths = {module_name(path, package, root): path for path in files}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        found = read_imports(path, package, root)
        whole = found.modules | found.dynamic | (found.lazy if lazy else set())
        targets = {module for module in whole if module in paths}
        for module, names in found.from_imports:
            submodules = {f"{module}.{n}" for n in names if f"{module}.{n}" in paths}
            targets |= submodules
            if len(submodules) < len(names) and module in paths:
                targets.add(module)
        targets.discard(name)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other in a loop (strongly connected
    components of more than one module), each sorted, largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(start: str) -> None:
        # Tarjan's algorithm without recursion: a stack of (node, its remaining targets).
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups, key=lambda group: (-len(group), group))
