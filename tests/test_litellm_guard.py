"""The suite's litellm guard (litellm_guard.py): a process the tests start that imports
litellm is recorded with its command line, its test and the importing stack; one that does
not, or that its test allows, is not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from litellm_guard import PROBE_DIR, allow_litellm, describe, reports


@pytest.fixture
def watched_env(tmp_path: Path) -> dict[str, str]:
    """The environment the guard gives the suite's processes, with a private report folder
    and a stand-in `litellm` package (the probe looks at the name; the real one takes seconds)."""
    stand_in = tmp_path / "packages" / "litellm"
    stand_in.mkdir(parents=True)
    (stand_in / "__init__.py").write_text("")
    (tmp_path / "reports").mkdir()
    return {
        **os.environ,
        "OH_TEST_IMPORT_REPORT": str(tmp_path / "reports"),
        "OH_TEST_IMPORT_PREFIX": sys.prefix,
        "PYTHONPATH": os.pathsep.join([str(PROBE_DIR), str(tmp_path / "packages")]),
    }


def _run(code: str, env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)


def test_a_process_importing_litellm_is_named_with_its_test_and_importer(
    watched_env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "packages" / "needs_it.py").write_text("import litellm\n")

    _run("import needs_it", watched_env)

    (found,) = reports(tmp_path / "reports")
    assert found["argv"] == ["-c"]
    assert "test_a_process_importing_litellm" in str(found["test"])
    assert "needs_it.py" in describe(found)


def test_a_process_that_does_not_import_litellm_leaves_no_record(
    watched_env: dict[str, str], tmp_path: Path
) -> None:
    # Locating the package (to read its price table) is not importing it.
    _run(
        "import importlib.util; importlib.util.find_spec('litellm'); import openhands.sdk",
        watched_env,
    )

    assert reports(tmp_path / "reports") == []


def test_a_process_its_test_allows_leaves_no_record(
    watched_env: dict[str, str], tmp_path: Path
) -> None:
    _run("import litellm", allow_litellm(watched_env))

    assert reports(tmp_path / "reports") == []


def test_the_suite_itself_runs_with_the_guard_on() -> None:
    assert os.environ.get("OH_TEST_IMPORT_REPORT")
    assert str(PROBE_DIR) in os.environ.get("PYTHONPATH", "").split(os.pathsep)
