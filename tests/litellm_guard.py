"""No process the suite starts imports litellm, unless its test is about litellm.

litellm costs seconds and ~180 MB per process; the SDK reaches OpenAI-compatible servers
(every fake the suite uses) without it. This plugin puts tests/process_probe on PYTHONPATH,
so every Python process the tests start (servers, CLI runs, workers, scripts) records the
moment it imports litellm (`sitecustomize.py` there). When the session ends, the run fails
if any did, naming each process: its command line, the test that started it and the stack
that imported litellm. A test about litellm starts its processes with
`OH_TEST_LITELLM_ALLOWED=1` (`allow_litellm(env)`). The test processes themselves are not
watched: in-process tests about litellm import it freely.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

PROBE_DIR = Path(__file__).parent / "process_probe"
REPORT_VARIABLE = "OH_TEST_IMPORT_REPORT"
ALLOW_VARIABLE = "OH_TEST_LITELLM_ALLOWED"


def allow_litellm(env: dict[str, str]) -> dict[str, str]:
    """`env` for a process that is meant to import litellm (a test about litellm)."""
    return {**env, ALLOW_VARIABLE: "1"}


def reports(folder: str | Path) -> list[dict[str, object]]:
    """The records of processes that imported litellm, found in `folder`."""
    found = []
    for path in sorted(Path(folder).glob("litellm-*.json")):
        try:
            found.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return found


def describe(report: dict[str, object]) -> str:
    """One process's record, for a failure message."""
    argv = report.get("argv")
    command = " ".join(str(a) for a in argv) if isinstance(argv, list) else str(argv)
    stack = report.get("stack")
    lines = [f"pid {report.get('pid')}: {command}", f"  started by: {report.get('test') or '?'}"]
    if isinstance(stack, list):
        lines += ["  imported litellm from:", *(f"    {line}" for line in stack[-6:])]
    return "\n".join(lines)


def _stop_watching_this_process() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "_LitellmImportProbe"]


def pytest_configure(config: pytest.Config) -> None:
    _stop_watching_this_process()
    if hasattr(config, "workerinput"):
        return  # an xdist worker: the controller set the environment it inherited
    folder = tempfile.mkdtemp(prefix="oh-litellm-guard-")
    config.stash[_FOLDER] = folder
    os.environ[REPORT_VARIABLE] = folder
    os.environ["OH_TEST_IMPORT_PREFIX"] = sys.prefix
    paths = [str(PROBE_DIR), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    folder = session.config.stash.get(_FOLDER, None)
    if folder is None:
        return
    found = reports(folder)
    shutil.rmtree(folder, ignore_errors=True)
    if not found:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    text = "\n".join(describe(report) for report in found)
    message = (
        f"{len(found)} process(es) started by the tests imported litellm, which no test "
        f"about litellm allowed (tests/litellm_guard.py):\n{text}"
    )
    if reporter is not None:
        reporter.section("litellm imports", sep="=", red=True)
        reporter.write_line(message)
    else:
        print(message, file=sys.stderr)
    if session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_FOLDER = pytest.StashKey[str]()
