"""`run_with_timeout`: call a function, giving up on it after a number of seconds.

The function runs in a worker thread. When time is up, the worker is asked to stop (an
exception is raised in it at its next Python instruction, as the reference's func-timeout
does) and the caller gets `TimeoutError` at once. A call blocked inside C code (a socket
read, `time.sleep`) stops only when that call returns; the caller does not wait for it.
"""

from __future__ import annotations

import builtins
import ctypes
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from openhands.sdk.errors import OpenHandsError

__all__ = ["TimeoutError", "run_with_timeout"]

T = TypeVar("T")


class TimeoutError(OpenHandsError, builtins.TimeoutError):
    """A function given to `run_with_timeout` did not return in time."""


class _Stop(BaseException):
    """Raised inside the worker to end a call that timed out (never seen by the caller)."""


def run_with_timeout(func: Callable[..., T], timeout: float, *args: Any, **kwargs: Any) -> T:
    """`func(*args, **kwargs)`, or `TimeoutError` after `timeout` seconds; its exception is
    re-raised as it was."""
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = func(*args, **kwargs)
        except _Stop:
            pass
        except BaseException as exc:  # handed to the caller as it was
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="run-with-timeout", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(worker.ident or 0), ctypes.py_object(_Stop)
        )
        raise TimeoutError(f"Operation timed out after {timeout} seconds")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
