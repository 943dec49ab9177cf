"""The tools package is layered: every import points down (docs/architecture.md draws it).

Lowest first (a layer may import only the layers under it; two units on one layer do not
import each other):

    params, text_files, file_search, utils
                                         shared parameters, text-file and search helpers
    terminal, file_editor, task_tracker, glob, grep, apply_patch, gemini, browser_use,
    ask_oracle, child_conversation, tom_consult
                                         the tools that work on the workspace, the browser
                                         (it finds the terminal through its executor's
                                         `shell_pid`, not by import), and side consultations
    preset                               agent presets: tool sets by name, prompts, built-in
                                         sub-agents
    planning_file_editor                 the planning agent's editor (its plan's headers
                                         come from the planning preset)
    task                                 running a sub-agent (finds built-in agents in preset)
    delegate, workflow                   tools that start sub-agents through task
    cli, __init__                        the goal command and the public names

A unit is a top-level module or folder of the package. An import is any way a module names
another: import statements anywhere (inside functions, under `TYPE_CHECKING`),
`importlib.import_module` / `__import__` with a literal name, and the SDK's lazy tables (see
`tests/import_graph.py`). A folder's `__init__.py` belongs to the folder's unit. No two modules
import each other, directly or round a loop (a tool's definition and its executor share
their action and observation through a third module, `schema.py`).
"""

from __future__ import annotations

from pathlib import Path

import import_graph
import openhands.tools
import pytest

PACKAGE = "openhands.tools"
ROOT = Path(openhands.tools.__file__).parent

ORDER: list[set[str]] = [
    {"params", "text_files", "file_search", "utils"},
    {
        "terminal",
        "file_editor",
        "task_tracker",
        "glob",
        "grep",
        "apply_patch",
        "gemini",
        "browser_use",
        "ask_oracle",
        "child_conversation",
        "tom_consult",
    },
    {"preset"},
    {"planning_file_editor"},
    {"task"},
    {"delegate", "workflow"},
    {"cli", "__init__"},
]
"""The layers, lowest first."""

LAYERS: dict[str, int] = {unit: level for level, units in enumerate(ORDER) for unit in units}
COMPOSITION = ORDER[-1]
"""The top layer's units count as one (the package face hands on the CLI's names)."""


def _modules() -> list[Path]:
    return sorted(ROOT.rglob("*.py"))


def _unit(path: Path) -> str:
    return path.relative_to(ROOT).with_suffix("").parts[0]


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Every module of the package that `path` imports, anywhere in the file."""
    return import_graph.imported_modules(path, PACKAGE, root)


def _imported_units(path: Path) -> set[str]:
    return {
        (name.removeprefix(PACKAGE).removeprefix(".").split(".")[0] or "__init__")
        for name in imported_modules(path)
    }


def upward_imports() -> list[str]:
    wrong = []
    for path in _modules():
        unit = _unit(path)
        for imported in _imported_units(path):
            if imported == unit or {unit, imported} <= COMPOSITION:
                continue
            if LAYERS[imported] >= LAYERS[unit]:
                wrong.append(f"{path.relative_to(ROOT).as_posix()} imports {imported}")
    return sorted(wrong)


def test_every_module_belongs_to_a_layer() -> None:
    assert {_unit(path) for path in _modules()} - set(LAYERS) == set()


def test_imports_only_point_down_the_layers() -> None:
    assert upward_imports() == []


def test_no_module_of_a_package_imports_the_package_itself() -> None:
    """`from openhands.tools.workflow import runner` inside workflow/ imports its own
    `__init__`, which imports the module back: a runtime cycle."""
    cycles = []
    for path in _modules():
        own = PACKAGE + "." + ".".join(path.relative_to(ROOT).parent.parts)
        if path.name != "__init__.py" and own != f"{PACKAGE}." and own in imported_modules(path):
            cycles.append(str(path.relative_to(ROOT)))
    assert cycles == []


def test_no_modules_import_each_other_round_a_loop() -> None:
    graph = import_graph.import_graph(PACKAGE, ROOT, _modules())
    assert import_graph.cycles(graph) == []


def test_every_dynamic_import_names_its_module() -> None:
    """`import_module(name)` with a computed name hides what it loads from these checks."""
    unreadable = {
        path.relative_to(ROOT).as_posix(): lines
        for path in _modules()
        if (lines := import_graph.read_imports(path, PACKAGE, ROOT).unreadable)
    }
    assert unreadable == {}


@pytest.mark.parametrize(
    "call",
    [
        'importlib.import_module("openhands.tools.delegate")',
        '__import__("openhands.tools.delegate")',
    ],
)
def test_the_check_sees_an_import_made_at_run_time(tmp_path: Path, call: str) -> None:
    (tmp_path / "terminal").mkdir()
    module = tmp_path / "terminal" / "session.py"
    module.write_text(f"import importlib\ndef load():\n    return {call}\n")
    assert imported_modules(module, root=tmp_path) == {"openhands.tools.delegate"}


def test_the_check_sees_a_definition_and_its_executor_importing_each_other(
    tmp_path: Path,
) -> None:
    (tmp_path / "grep").mkdir()
    (tmp_path / "grep" / "definition.py").write_text(
        "def create():\n    from openhands.tools.grep.impl import GrepExecutor\n"
    )
    (tmp_path / "grep" / "impl.py").write_text("from .definition import GrepAction\n")
    graph = import_graph.import_graph(PACKAGE, tmp_path, sorted(tmp_path.rglob("*.py")))
    assert import_graph.cycles(graph) == [
        ["openhands.tools.grep.definition", "openhands.tools.grep.impl"]
    ]


def test_the_check_sees_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    (tmp_path / "workflow").mkdir()
    module = tmp_path / "workflow" / "executor.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from openhands.tools.preset.default import get_default_agent\n"
        "def build():\n"
        "    from openhands.tools.delegate import DelegateTool\n"
        "    from . import runner\n"
    )
    assert imported_modules(module, root=tmp_path) == {
        "openhands.tools.preset.default",
        "openhands.tools.delegate",
        "openhands.tools.workflow",
    }
