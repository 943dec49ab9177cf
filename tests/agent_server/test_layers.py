"""The server package is layered: every import points down, and every module says what it owns.

    composition (app, __main__, litellm_preload, ws_protocol, http_protocol, loop_errors,
                 log_redaction)
    api/, edge/           HTTP
    services/             the conversations
    goals/                the goal driver
    temporal/             goals on Temporal (workflow, activities, worker, backend)
    base (config, auth, errors, blocking)

A module may import its own folder (the composition modules count as one) and any lower
layer, never a higher one or a sibling layer (api and edge do not import each other). Imports are read from the source with `ast`,
including those inside functions and under `TYPE_CHECKING`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import openhands.agent_server

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


def _imported_units(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    units = set()
    for name in names:
        if name == PACKAGE or not name.startswith(f"{PACKAGE}."):
            continue
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
        if not (ast.get_docstring(ast.parse(path.read_text())) or "").strip()
    ]
    assert missing == []


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    module = tmp_path / "driver.py"
    module.write_text("from openhands.agent_server.services.live import LiveConversation\n")
    assert _imported_units(module) == {"services"}
