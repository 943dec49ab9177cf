"""The server package is layered: every import points down, and every module says what it owns.

    composition (app, __main__, litellm_preload, ws_protocol, http_protocol, loop_errors,
                 log_redaction)
    api/, edge/           HTTP
    services/             the conversations
    goals/                the goal driver
    temporal/             goals on Temporal (workflow, activities, worker, backend)
    base (config, auth, errors, blocking)

A module may import its own folder (the composition modules count as one) and any lower
layer, never a higher one or a sibling layer (api and edge do not import each other). An
import is any way a module names another: import statements anywhere (inside functions,
under `TYPE_CHECKING`, relative ones), `importlib.import_module` / `__import__` with a
literal name, and the SDK's lazy tables (see `tests/import_graph.py`). No two modules import
each other, directly or round a loop (a service and the live conversation that owns it meet
through a Protocol: `GoalHost`, `CheckpointHost`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import import_graph
import openhands.agent_server
import pytest
from openhands.agent_server.api import LAZY_ROUTERS

PACKAGE = "openhands.agent_server"
ROOT = Path(openhands.agent_server.__file__).parent

LAYERS: dict[str, int] = {
    "config": 0,
    "auth": 0,
    "errors": 0,
    "blocking": 0,
    "temporal": 1,
    "goals": 2,
    "services": 3,
    "api": 4,
    "edge": 4,
    "app": 5,
    "__main__": 5,
    "litellm_preload": 5,
    "ws_protocol": 5,
    "http_protocol": 5,
    "loop_errors": 5,
    "log_redaction": 5,
    "__init__": 5,
}
"""Layer of each top-level module or folder of the package (higher imports lower)."""

COMPOSITION = frozenset(name for name, layer in LAYERS.items() if layer == max(LAYERS.values()))


def _modules() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if "web" not in p.relative_to(ROOT).parts)


def _unit(path: Path) -> str:
    """The top-level module or folder a file belongs to (`api`, `config`, ...)."""
    return path.relative_to(ROOT).with_suffix("").parts[0]


def _same_unit(a: str, b: str) -> bool:
    return a == b or (a in COMPOSITION and b in COMPOSITION)


COMPUTED_IMPORTS: dict[str, str] = {
    "api/lazy.py": "a lazy router's module, from LAZY_ROUTERS: checked to be api's own below",
}
"""Files allowed a dynamic import whose module is computed, and why."""


def _imported_units(path: Path, root: Path = ROOT) -> set[str]:
    units = set()
    for name in import_graph.imported_modules(path, PACKAGE, root):
        if name != PACKAGE:
            units.add(name.removeprefix(f"{PACKAGE}.").split(".")[0])
    return units


def test_every_module_belongs_to_a_layer() -> None:
    assert {_unit(path) for path in _modules()} <= set(LAYERS)


def test_imports_only_point_down_the_layers() -> None:
    wrong = []
    for path in _modules():
        unit = _unit(path)
        for imported in _imported_units(path):
            if not _same_unit(unit, imported) and LAYERS[imported] >= LAYERS[unit]:
                wrong.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert wrong == []


def test_every_module_has_a_docstring_saying_what_it_owns() -> None:
    missing = [
        str(path.relative_to(ROOT))
        for path in _modules()
        if not (ast.get_docstring(import_graph.parsed(path)) or "").strip()
    ]
    assert missing == []


def test_no_modules_import_each_other_round_a_loop() -> None:
    graph = import_graph.import_graph(PACKAGE, ROOT, _modules())
    assert import_graph.cycles(graph) == []


def test_every_dynamic_import_names_its_module() -> None:
    unreadable = {
        path.relative_to(ROOT).as_posix(): lines
        for path in _modules()
        if (lines := import_graph.read_imports(path, PACKAGE, ROOT).unreadable)
    }
    assert {name: lines for name, lines in unreadable.items() if name not in COMPUTED_IMPORTS} == {}


def test_the_lazy_routers_are_modules_of_the_api_layer() -> None:
    """api/lazy.py imports them by a computed name, so this is where their layer is checked."""
    assert {group.module.split(".")[2] for group in LAZY_ROUTERS} == {"api"}
    assert all(
        (ROOT / Path(*group.module.split(".")[2:])).with_suffix(".py").is_file()
        for group in LAZY_ROUTERS
    )


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    (tmp_path / "goals").mkdir()
    module = tmp_path / "goals" / "driver.py"
    module.write_text(
        "def f():\n    from ..services.live import LiveConversation\n"
        "from openhands.agent_server.api import routing\n"
    )
    assert _imported_units(module, root=tmp_path) == {"services", "api"}


@pytest.mark.parametrize(
    "call",
    [
        'importlib.import_module("openhands.agent_server.services.live")',
        '__import__("openhands.agent_server.services.live")',
    ],
)
def test_the_check_sees_an_import_made_at_run_time(tmp_path: Path, call: str) -> None:
    module = tmp_path / "driver.py"
    module.write_text(f"import importlib\ndef load():\n    return {call}\n")
    assert _imported_units(module, root=tmp_path) == {"services"}


def test_the_check_sees_two_services_importing_each_other(tmp_path: Path) -> None:
    (tmp_path / "services").mkdir()
    (tmp_path / "services" / "live.py").write_text(
        "from openhands.agent_server.services.checkpoints import WorkspaceCheckpoints\n"
    )
    (tmp_path / "services" / "checkpoints.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from openhands.agent_server.services.live import LiveConversation\n"
    )
    graph = import_graph.import_graph(PACKAGE, tmp_path, sorted(tmp_path.rglob("*.py")))
    assert import_graph.cycles(graph) == [
        ["openhands.agent_server.services.checkpoints", "openhands.agent_server.services.live"]
    ]
