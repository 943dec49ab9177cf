"""The agent server's start loads only the modules of its budget (tests/import_budget.py): a
real `python -m openhands.agent_server` is asked, once /health answers, which modules it has
loaded (tests/process_probe), and any beyond the budget are named."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_budget import ModuleSet, advice, load_budget, problems, server_modules

pytestmark = pytest.mark.slow


def test_the_server_start_loads_only_the_modules_of_its_budget(tmp_path: Path) -> None:
    budget = load_budget()

    started = server_modules(tmp_path)

    sandbox_only = ModuleSet.from_json(budget["server_sandbox"])
    found = problems(
        "the server's start",
        ModuleSet.of(started.modules),
        ModuleSet.from_json(budget["server"]),
        sandbox_only if started.self_check_ran else ModuleSet.of([]),
        budget,
    )
    assert not found, "\n".join([*found, advice()])
