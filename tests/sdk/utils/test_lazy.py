"""lazy_exports: a package's names that load on first use."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest


def _package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(
        "from openhands.sdk.utils.lazy import lazy_exports\n"
        "EAGER = 1\n"
        f"__getattr__, __dir__ = lazy_exports(__name__, {{'Heavy': '{name}.heavy'}})\n"
    )
    (package / "heavy.py").write_text("class Heavy:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))


def test_a_lazy_name_loads_its_module_on_first_read_and_then_is_a_plain_global(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _package(tmp_path, monkeypatch, "lazy_demo_first_read")
    package = importlib.import_module("lazy_demo_first_read")
    assert "lazy_demo_first_read.heavy" not in sys.modules

    heavy = package.Heavy

    assert sys.modules["lazy_demo_first_read.heavy"].Heavy is heavy
    assert vars(package)["Heavy"] is heavy


def test_an_unknown_name_is_an_attribute_error_and_dir_lists_the_lazy_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _package(tmp_path, monkeypatch, "lazy_demo_unknown")
    package = importlib.import_module("lazy_demo_unknown")

    with pytest.raises(AttributeError, match=r"lazy_demo_unknown.*Missing"):
        _ = package.Missing
    assert {"EAGER", "Heavy"} <= set(dir(package))
    assert "lazy_demo_unknown.heavy" not in sys.modules


def test_every_lazy_sdk_name_resolves_without_loading_litellm_on_import() -> None:
    # Each package's lazy names are all reachable (a typo in a mapping would fail here), and
    # `import openhands.sdk` itself still leaves litellm unloaded.
    code = (
        "import sys, importlib\n"
        "import openhands.sdk\n"
        "assert 'litellm' not in sys.modules\n"
        "for pkg in ['openhands.sdk', 'openhands.sdk.agent', 'openhands.sdk.agent.prompts',\n"
        "            'openhands.sdk.context', 'openhands.sdk.hooks', 'openhands.sdk.llm',\n"
        "            'openhands.sdk.logger', 'openhands.sdk.mcp', 'openhands.sdk.settings',\n"
        "            'openhands.sdk.skills', 'openhands.sdk.tool', 'openhands.sdk.tool.schema']:\n"
        "    module = importlib.import_module(pkg)\n"
        "    for name in getattr(module, '__all__', dir(module)):\n"
        "        getattr(module, name)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
