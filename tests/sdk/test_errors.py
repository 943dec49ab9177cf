"""One error root: everything the project raises on purpose is an `OpenHandsError`."""

from __future__ import annotations

import errno
import importlib
import inspect
import pkgutil

import openhands.agent_server
import openhands.sdk
import openhands.tools
import pytest
from openhands.sdk import OpenHandsError, StorageError, StorageFullError
from openhands.sdk.errors import storage_error

PACKAGES = [openhands.sdk, openhands.tools, openhands.agent_server]


def _project_exceptions() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for package in PACKAGES:
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            for _, obj in inspect.getmembers(module, inspect.isclass):
                if (
                    issubclass(obj, BaseException)
                    and obj.__module__.startswith("openhands.")
                    and not obj.__name__.startswith("_")
                ):
                    found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(found.values())


def test_every_project_exception_derives_from_the_root() -> None:
    outside = [
        cls.__qualname__ for cls in _project_exceptions() if not issubclass(cls, OpenHandsError)
    ]

    assert outside == []


def test_project_has_many_exceptions_under_the_root() -> None:
    # Guards the walk above: it must really find the project's errors.
    assert len(_project_exceptions()) > 20


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_a_full_disk_is_a_storage_full_error(code: int) -> None:
    error = storage_error("append to", "/x/events.jsonl", OSError(code, "No space left"))

    assert isinstance(error, StorageFullError)
    assert isinstance(error, OSError)
    assert error.errno == code
    assert "Free disk space" in str(error)


def test_other_os_errors_are_storage_errors_naming_the_path() -> None:
    error = storage_error("write", "/ro/base_state.json", OSError(errno.EROFS, "Read-only"))

    assert type(error) is StorageError
    assert "/ro/base_state.json" in str(error)
    assert error.cause is not None and error.cause.errno == errno.EROFS
