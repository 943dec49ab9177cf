"""Importing the SDK stays cheap: litellm is loaded on the first real completion, not before,
and `import openhands.sdk` loads no module beyond its budget (tests/import_budget.py)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from import_budget import ModuleSet, advice, load_budget, problems, sdk_modules

HEAVY_MODULES = ("litellm",)

# The SDK, its test doubles (users import them in their own tests) and the tools package.
CHEAP_PACKAGES = ("openhands.sdk", "openhands.sdk.testing", "openhands.tools")


def _loaded_after_import(module: str, watched: tuple[str, ...]) -> list[str]:
    """Import `module` in a fresh interpreter; return which of `watched` are then loaded."""
    code = (
        "import json, sys\n"
        f"import {module}\n"
        f"print(json.dumps([m for m in {watched!r} if m in sys.modules]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, f"import {module} failed:\n{result.stderr}"
    return json.loads(result.stdout.strip().splitlines()[-1])


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.parametrize("module", CHEAP_PACKAGES)
def test_import_does_not_load_litellm(module: str) -> None:
    if not _installed(module):
        pytest.skip(f"{module} is not installed")

    assert _loaded_after_import(module, HEAVY_MODULES) == []


def test_the_check_reports_modules_an_import_pulls_in() -> None:
    assert _loaded_after_import("openhands.sdk", ("pydantic", "no_such_module")) == ["pydantic"]


def test_import_loads_only_the_modules_of_its_budget() -> None:
    budget = load_budget()
    measured = ModuleSet.of(sdk_modules())

    found = problems(
        "import openhands.sdk",
        measured,
        ModuleSet.from_json(budget["sdk"]),
        ModuleSet.of([]),
        budget,
    )

    assert not found, "\n".join([*found, advice()])


def test_the_budget_check_names_what_newly_got_imported() -> None:
    budget = load_budget()
    allowed = ModuleSet.from_json(budget["sdk"])
    measured = allowed.union(ModuleSet.of(["openhands.sdk.heavy_thing", "litellm.main"]))

    found = "\n".join(problems("import openhands.sdk", measured, allowed, ModuleSet.of([]), budget))

    assert "import openhands.sdk now loads 1 modules beyond its import budget" in found
    assert "+ openhands.sdk.heavy_thing" in found
    assert "+ litellm" in found
    assert "tests/import_budget.py --update" in advice()


def test_the_budget_check_names_what_is_no_longer_imported() -> None:
    budget = load_budget()
    allowed = ModuleSet.from_json(budget["sdk"])
    measured = allowed.minus(ModuleSet.of(["openhands.sdk.agent.base"]))

    found = problems("import openhands.sdk", measured, allowed, ModuleSet.of([]), budget)

    assert found == [
        "import openhands.sdk no longer loads 1 modules of its import budget (good: shrink "
        "the budget):\n  - openhands.sdk.agent.base\n"
    ]


def test_standard_modules_are_compared_only_under_the_budgets_python() -> None:
    budget = {**load_budget(), "python": "2.7"}
    allowed = ModuleSet.from_json(budget["sdk"])

    found = problems(
        "import openhands.sdk",
        allowed.union(ModuleSet.of(["asyncio"])),
        allowed,
        ModuleSet.of([]),
        budget,
    )

    assert found == []
