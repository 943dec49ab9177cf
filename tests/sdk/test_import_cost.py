"""Importing the SDK stays cheap: litellm is loaded on the first real completion, not before."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

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
