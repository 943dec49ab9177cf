"""`openhands.tools.utils`: command checks and `run_with_timeout`, under the reference's names."""

from __future__ import annotations

import builtins
import threading

import pytest
from openhands.sdk.errors import OpenHandsError
from openhands.tools.utils import (
    _check_command_available,
    _check_grep_available,
    _log_ripgrep_fallback_warning,
)
from openhands.tools.utils.timeout import TimeoutError, run_with_timeout


def test_command_checks_find_what_is_installed() -> None:
    assert _check_command_available("bash")
    assert not _check_command_available("no-such-command-here")
    assert not _check_command_available("false", probe_args=())  # runs, but fails its probe
    assert _check_grep_available()


def test_the_fallback_warning_names_the_tool(caplog: pytest.LogCaptureFixture) -> None:
    _log_ripgrep_fallback_warning("glob", "Python's pathlib")

    assert "glob: ripgrep (rg) is not installed; using Python's pathlib" in caplog.text


def test_a_function_in_time_returns_its_value_or_its_error() -> None:
    assert run_with_timeout(lambda a, b=0: a + b, 5, 2, b=3) == 5
    with pytest.raises(KeyError):
        run_with_timeout(lambda: {}["missing"], 5)


def test_a_function_past_its_time_is_stopped_and_the_caller_gets_timeout_error() -> None:
    release = threading.Event()
    stopped = threading.Event()

    def spin() -> None:
        try:
            while not release.is_set():
                pass  # pure Python: the stop lands at the next instruction
        finally:
            stopped.set()

    with pytest.raises(TimeoutError, match=r"timed out after 0\.2 seconds") as raised:
        run_with_timeout(spin, 0.2)

    assert isinstance(raised.value, builtins.TimeoutError)
    assert isinstance(raised.value, OpenHandsError)
    assert stopped.wait(30)  # the worker was stopped, not left spinning
    release.set()
