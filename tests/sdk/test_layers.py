"""The SDK package is layered: every import points down (docs/architecture.md draws the layers).

Lowest first (a layer may import only the layers under it; two units on one layer do not
import each other):

    errors                                   the one error root
    utils                                    small helpers (the lazy-export helper too)
    io, logger, secret                       files, logging, secret values
    llm, extensions                          talking to a model; fetching extension sources
    workspace, marketplace, testing          where commands run; catalogues; test doubles
    tool                                     what the model may call (schemas, definitions)
    event                                    what happens in a conversation (tool calls too)
    context, security, contracts             prompts and skills; risk; the seams (Protocols)
    skills, hooks, mcp                       installed skills; hook commands; MCP tools
    agent                                    one step of the agent loop
    subagent                                 agents an agent may start
    plugin, settings                         bundles of skills/hooks/MCP; stored agent settings
    conversation                             a local conversation: state, log, run loop
    conversation.goal                        the goal loop on a conversation
    wire                                     the server's JSON shapes
    remote                                   an agent server: RemoteWorkspace, RemoteConversation,
                                             and `Conversation(...)` / `Workspace(...)`
    __init__, the old paths                  the public names (the composition root), and the
                                             paths of what moved into `remote`

A unit is a top-level module or folder of the package; `conversation/goal` is a unit of its
own. An import is any way a module names another: import statements anywhere (inside
functions, under `TYPE_CHECKING`), `importlib.import_module` / `__import__` with a literal
name, and the tables of `utils.lazy` (`lazy_exports`, `moved_module`); see
`tests/import_graph.py`.

A folder's `__init__.py` is its face: besides what its own unit may import, it may hand on the
names of the units inside its folder, and nothing in the package imports a face whose names
come from above. The faces of `conversation` and `workspace` hand on what moved up into
`remote` (`Conversation`, `RemoteConversation`, `RemoteWorkspace`, `Workspace`) on first read
only, so loading those folders never loads `remote`; the old module paths
(`conversation/remote/`, `workspace/remote/`, the factories, the reference's
`conversation/impl/`) only forward to the new ones. Over all of it: no two modules import
each other, directly or round a loop, and no folder imports one that imports it back.
"""

from __future__ import annotations

import ast
from pathlib import Path

import import_graph
import openhands.sdk
import pytest

PACKAGE = "openhands.sdk"
ROOT = Path(openhands.sdk.__file__).parent

MOVED: frozenset[str] = frozenset(
    {
        "conversation.remote",
        "conversation.impl",
        "conversation.factory",
        "workspace.remote",
        "workspace.factory",
    }
)
"""Old paths of what lives in `remote` now (and the reference SDK's `conversation.impl`):
modules that only forward each name read from them to the new home."""

ORDER: list[set[str]] = [
    {"errors"},
    {"utils"},
    {"io", "logger", "secret"},
    {"llm", "extensions"},
    {"workspace", "marketplace", "testing"},
    {"tool"},
    {"event"},
    {"context", "security", "contracts"},
    {"skills", "hooks", "mcp"},
    {"agent"},
    {"subagent"},
    {"plugin", "settings"},
    {"conversation"},
    {"conversation.goal"},
    {"wire"},
    {"remote"},
    {"__init__", *MOVED},
]
"""The layers, lowest first."""

LAYERS: dict[str, int] = {unit: level for level, units in enumerate(ORDER) for unit in units}
"""Layer of each unit (higher imports lower)."""

HANDED_ON_FROM_ABOVE: dict[str, frozenset[str]] = {
    "conversation": frozenset({"remote"}),
    "workspace": frozenset({"remote"}),
}
"""Faces that hand on names of a unit above them (the reference SDK's paths of what moved
there), through `lazy_exports` only."""

COMPUTED_IMPORTS: dict[str, str] = {
    "utils/lazy.py": "the lazy-name helpers themselves: the tables their callers pass are read",
}
"""Files allowed a dynamic import whose module is computed, and why."""

KNOWN_UPWARD: frozenset[str] = frozenset()
"""Upward imports not yet removed (`file imports unit`); the list only shrinks."""


def _modules(root: Path = ROOT) -> list[Path]:
    return sorted(root.rglob("*.py"))


def _unit_of(parts: tuple[str, ...] | list[str]) -> str:
    """The unit a dotted path inside the package belongs to (the longest unit it starts with)."""
    for length in (2, 1):
        name = ".".join(parts[:length])
        if len(parts) >= length and name in LAYERS:
            return name
    return parts[0] if parts else "__init__"


def _unit(path: Path, root: Path = ROOT) -> str:
    """The unit a file belongs to (`agent`, `conversation.goal`, `errors`, ...)."""
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return _unit_of(parts)


def imported_modules(path: Path, package: str = PACKAGE, root: Path = ROOT) -> set[str]:
    """Every module of `package` that `path` imports (a name imported from a package may be
    one of its modules)."""
    return import_graph.imported_modules(path, package, root, names_may_be_modules=True)


def _unit_of_module(name: str) -> str:
    parts = [p for p in name.removeprefix(PACKAGE).split(".") if p]
    unit = _unit_of(parts)
    # `from openhands.sdk.conversation import goal` names a unit only if goal is a module.
    return unit if unit in LAYERS else _unit_of(parts[:-1])


def _face(name: str) -> Path | None:
    """The `__init__.py` of package `name` when it is a folder's face (not the package's)."""
    parts = [p for p in name.removeprefix(PACKAGE).split(".") if p]
    face = ROOT.joinpath(*parts, "__init__.py")
    return face if parts and face.is_file() else None


def _imported_units(path: Path) -> set[str]:
    """The units `path` imports; importing a face counts as importing what it hands on."""
    units = set()
    for name in imported_modules(path):
        units.add(_unit_of_module(name))
        face = _face(name)
        if face is not None and face != path:
            units.update(_unit_of_module(handed) for handed in imported_modules(face))
    return units


def _is_own_sub_unit(path: Path, imported: str) -> bool:
    """Whether `path` is a folder's face and `imported` a unit inside that folder."""
    if path.name != "__init__.py":
        return False
    folder = ".".join(path.parent.relative_to(ROOT).parts)
    return bool(folder) and imported.startswith(f"{folder}.")


def _handed_on_from_above(path: Path, unit: str, imported: str) -> bool:
    """Whether `path` is a face listed in HANDED_ON_FROM_ABOVE handing on `imported` lazily."""
    if path.name != "__init__.py" or imported not in HANDED_ON_FROM_ABOVE.get(unit, ()):
        return False
    found = import_graph.read_imports(path, PACKAGE, ROOT)
    eager = found.names(names_may_be_modules=True) - found.lazy
    return any(_unit_of_module(m) == imported for m in found.lazy) and not any(
        _unit_of_module(m) == imported for m in eager
    )


def upward_imports() -> set[str]:
    """Each import that runs up or sideways, as `file imports unit`."""
    wrong = set()
    for path in _modules():
        unit = _unit(path)
        for imported in _imported_units(path):
            if imported == unit or _is_own_sub_unit(path, imported):
                continue
            if _handed_on_from_above(path, unit, imported):
                continue
            if LAYERS[imported] >= LAYERS[unit]:
                wrong.add(f"{path.relative_to(ROOT).as_posix()} imports {imported}")
    return wrong


def _folder(path: Path) -> str:
    """The top-level module or folder a file is in (`conversation` for conversation/goal/)."""
    return path.relative_to(ROOT).with_suffix("").parts[0]


def folder_cycles() -> list[list[str]]:
    """Top-level folders whose files import each other round a loop, by import statements
    (what loads when a folder's code is loaded; a lazy table loads on a name's first read).
    The package's own `__init__.py`, the composition root, stands above them all."""
    graph: dict[str, set[str]] = {}
    for path in _modules():
        if path == ROOT / "__init__.py":
            continue
        found = import_graph.read_imports(path, PACKAGE, ROOT)
        eager = found.names(names_may_be_modules=False, statements_only=True)
        folder = _folder(path)
        for name in eager:
            if name.startswith(f"{PACKAGE}."):
                graph.setdefault(folder, set()).add(name.removeprefix(f"{PACKAGE}.").split(".")[0])
        graph.setdefault(folder, set()).discard(folder)
    return import_graph.cycles(graph)


def test_every_module_belongs_to_a_layer() -> None:
    assert {_unit(path) for path in _modules()} - set(LAYERS) == set()


def test_imports_only_point_down_the_layers() -> None:
    assert sorted(upward_imports() - KNOWN_UPWARD) == []


def test_the_known_upward_imports_are_still_there() -> None:
    """An upward import that is gone leaves KNOWN_UPWARD, so the list only shrinks."""
    assert sorted(KNOWN_UPWARD - upward_imports()) == []


def test_no_modules_import_each_other_round_a_loop() -> None:
    """Not even inside one unit: a loop makes the import order matter and the files one."""
    graph = import_graph.import_graph(PACKAGE, ROOT, _modules())
    assert import_graph.cycles(graph) == []


def test_no_folders_import_each_other() -> None:
    assert folder_cycles() == []


def test_every_dynamic_import_names_its_module() -> None:
    """`import_module(name)` with a computed name hides what it loads from these checks."""
    unreadable = {
        path.relative_to(ROOT).as_posix(): lines
        for path in _modules()
        if (lines := import_graph.read_imports(path, PACKAGE, ROOT).unreadable)
    }
    assert {name: lines for name, lines in unreadable.items() if name not in COMPUTED_IMPORTS} == {}


def test_the_old_paths_only_forward() -> None:
    """Each module of an old path holds a docstring, the helper's import and one
    `moved_module` call (or nothing: a folder's face): no code lives there."""
    wrong = []
    for path in _modules():
        if _unit(path) not in MOVED:
            continue
        body = import_graph.parsed(path).body
        statements = [ast.dump(node) for node in body[1:]]  # after the docstring
        if statements and not (
            len(body) == 3
            and isinstance(body[1], ast.ImportFrom)
            and body[1].module == "openhands.sdk.utils.lazy"
            and "moved_module" in ast.dump(body[2])
        ):
            wrong.append(path.relative_to(ROOT).as_posix())
    assert wrong == []


# -- the checks see every kind of import ---------------------------------------------------


def _package_in(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        module = tmp_path / name
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text(text)
    return tmp_path


def test_the_check_sees_an_upward_import_inside_a_function(tmp_path: Path) -> None:
    root = _package_in(
        tmp_path,
        {
            "hooks/agent_hook.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    from openhands.sdk.conversation.local import LocalConversation\n"
            "def build():\n"
            "    from openhands.sdk.agent import Agent\n"
            "    from ..conversation import goal\n"
        },
    )
    assert imported_modules(root / "hooks" / "agent_hook.py", root=root) == {
        "openhands.sdk.conversation.local",
        "openhands.sdk.conversation.local.LocalConversation",
        "openhands.sdk.agent",
        "openhands.sdk.agent.Agent",
        "openhands.sdk.conversation",
        "openhands.sdk.conversation.goal",
    }


@pytest.mark.parametrize(
    "call",
    [
        'importlib.import_module("openhands.sdk.conversation.local")',
        '__import__("openhands.sdk.conversation.local")',
        'lazy_exports(__name__, {"LocalConversation": "openhands.sdk.conversation.local"})',
        'moved_module(__name__, "openhands.sdk.conversation.local")',
    ],
)
def test_the_check_sees_an_import_made_at_run_time(tmp_path: Path, call: str) -> None:
    root = _package_in(tmp_path, {"hooks/runner.py": f"def load():\n    return {call}\n"})
    assert "openhands.sdk.conversation.local" in imported_modules(
        root / "hooks" / "runner.py", root=root
    )


def test_the_check_reads_a_lazy_table_bound_to_a_name(tmp_path: Path) -> None:
    root = _package_in(
        tmp_path,
        {
            "tool/__init__.py": '_LAZY = {"Agent": "openhands.sdk.agent.agent",'
            ' **dict.fromkeys(("A", "B"), "openhands.sdk.conversation.state")}\n'
            "__getattr__, __dir__ = lazy_exports(__name__, _LAZY)\n"
        },
    )
    assert imported_modules(root / "tool" / "__init__.py", root=root) >= {
        "openhands.sdk.agent.agent",
        "openhands.sdk.conversation.state",
    }


def test_a_dynamic_import_of_a_computed_name_is_unreadable(tmp_path: Path) -> None:
    root = _package_in(
        tmp_path,
        {"tool/loader.py": "import importlib\ndef load(n):\n    importlib.import_module(n)\n"},
    )
    assert import_graph.read_imports(root / "tool" / "loader.py", PACKAGE, root).unreadable == [3]


def test_the_check_sees_modules_of_one_unit_importing_each_other(tmp_path: Path) -> None:
    root = _package_in(
        tmp_path,
        {
            "event/base.py": "from openhands.sdk.event.to_messages import events_to_messages\n",
            "event/to_messages.py": "def f():\n    from .action import ActionEvent\n",
            "event/action.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from openhands.sdk.event.base import Event\n",
            "event/message.py": "from openhands.sdk.event.base import Event\n",
        },
    )
    graph = import_graph.import_graph(PACKAGE, root, sorted(root.rglob("*.py")))
    assert import_graph.cycles(graph) == [
        [
            "openhands.sdk.event.action",
            "openhands.sdk.event.base",
            "openhands.sdk.event.to_messages",
        ]
    ]
