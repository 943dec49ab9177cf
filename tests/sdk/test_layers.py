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
    workspace.remote                         an agent server: its transport, settings, commands
    conversation.remote                      a conversation on an agent server
    conversation.factory, workspace.factory  `Conversation(...)` / `Workspace(...)`: local or
                                             remote, from the arguments
    __init__                                 the public names (the composition root)

A unit is a top-level module or folder of the package; `conversation/goal`,
`conversation/remote`, `workspace/remote` and the two factories are units of their own. A folder's `__init__.py`
is its face: besides what its own unit may import, it may hand on the names of the units
inside its folder (`openhands.sdk.workspace` hands on `RemoteWorkspace` and `Workspace`), and nothing in the
package imports such a face from below. Imports are read from the source with `ast`,
including those inside functions and under `TYPE_CHECKING`.
"""

from __future__ import annotations

from pathlib import Path

import import_graph
import openhands.sdk

PACKAGE = "openhands.sdk"
ROOT = Path(openhands.sdk.__file__).parent

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
    {"workspace.remote"},
    {"conversation.remote"},
    {"conversation.factory", "workspace.factory"},
    {"__init__"},
]
"""The layers, lowest first."""

LAYERS: dict[str, int] = {unit: level for level, units in enumerate(ORDER) for unit in units}
"""Layer of each unit (higher imports lower)."""

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


def upward_imports() -> set[str]:
    """Each import that runs up or sideways, as `file imports unit`."""
    wrong = set()
    for path in _modules():
        unit = _unit(path)
        for imported in _imported_units(path):
            if imported == unit or _is_own_sub_unit(path, imported):
                continue
            if LAYERS[imported] >= LAYERS[unit]:
                wrong.add(f"{path.relative_to(ROOT).as_posix()} imports {imported}")
    return wrong


def test_every_module_belongs_to_a_layer() -> None:
    assert {_unit(path) for path in _modules()} - set(LAYERS) == set()


def test_imports_only_point_down_the_layers() -> None:
    assert sorted(upward_imports() - KNOWN_UPWARD) == []


def test_the_known_upward_imports_are_still_there() -> None:
    """An upward import that is gone leaves KNOWN_UPWARD, so the list only shrinks."""
    assert sorted(KNOWN_UPWARD - upward_imports()) == []


def test_the_check_sees_an_upward_import_inside_a_function(tmp_path: Path) -> None:
    package = tmp_path / "hooks"
    package.mkdir()
    module = package / "agent_hook.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from openhands.sdk.conversation.local import LocalConversation\n"
        "def build():\n"
        "    from openhands.sdk.agent import Agent\n"
        "    from ..conversation import goal\n"
    )
    assert imported_modules(module, root=tmp_path) == {
        "openhands.sdk.conversation.local",
        "openhands.sdk.conversation.local.LocalConversation",
        "openhands.sdk.agent",
        "openhands.sdk.agent.Agent",
        "openhands.sdk.conversation",
        "openhands.sdk.conversation.goal",
    }
