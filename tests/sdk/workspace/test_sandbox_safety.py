"""Which folders a sandbox may write: the workspace and `OH_SANDBOX_WRITABLE` rules.

Pure checks on real paths (no bubblewrap): `/`, a link to it, /proc, /sys, /dev, the
server's own installation and its data are refused, with the reason; a project folder (even
one holding the server's venv, as a checkout does) is not.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest
from openhands.sdk.errors import InvalidSettingError
from openhands.sdk.workspace import SandboxPolicy
from openhands.sdk.workspace.sandbox_safety import workspace_problem, writable_problem


@pytest.fixture
def data(tmp_path: Path) -> tuple[str, ...]:
    """A server's data under tmp_path: conversations, key file, settings."""
    (tmp_path / "data" / "conversations").mkdir(parents=True)
    (tmp_path / "data" / ".secret_key").write_text("key")
    return (
        str(tmp_path / "data" / "conversations"),
        str(tmp_path / "data" / ".secret_key"),
        str(tmp_path / "data" / "settings"),  # not made yet: refused all the same
    )


@pytest.mark.parametrize(
    ("folder", "reason"),
    [
        ("/", "whole file system"),
        ("/proc", "inside /proc"),
        ("/proc/self", "inside /proc"),  # a link into /proc
        ("/dev", "inside /dev"),
        ("/dev/shm", "inside /dev"),
        ("/sys", "inside /sys"),
    ],
)
def test_system_folders_are_refused_as_workspaces(folder: str, reason: str) -> None:
    problem = workspace_problem(folder)

    assert problem is not None and reason in problem and folder in problem


def test_a_link_to_root_is_refused_naming_both(tmp_path: Path) -> None:
    link = tmp_path / "root"
    link.symlink_to("/")

    problem = workspace_problem(str(link))

    assert problem == f"{link} (= /) is the whole file system"


def test_a_folder_holding_or_inside_the_server_s_data_is_refused(
    tmp_path: Path, data: tuple[str, ...]
) -> None:
    holding = workspace_problem(str(tmp_path), hidden=data)
    inside = workspace_problem(f"{data[0]}/some-id", hidden=data)
    settings = workspace_problem(str(tmp_path / "data"), hidden=data)

    assert holding is not None and "the server's own data" in holding
    assert inside is not None and f"inside {data[0]}" in inside
    assert settings is not None and "holds" in settings


def test_a_project_folder_is_a_workspace_even_one_holding_the_server_s_venv(
    tmp_path: Path, data: tuple[str, ...]
) -> None:
    assert workspace_problem(str(tmp_path / "project"), hidden=data) is None
    assert workspace_problem(str(Path(sys.prefix).parent)) is None  # a checkout with .venv


def test_a_workspace_inside_the_server_s_installation_is_refused() -> None:
    problem = workspace_problem(os.path.join(sysconfig.get_path("purelib"), "somewhere"))

    assert problem is not None and "a folder the server runs from" in problem


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda tmp: "relative/folder", "not an absolute path"),
        (lambda tmp: f"{tmp}/a:{tmp}/b", "separate folders with commas"),
        (lambda tmp: f"{tmp}/missing", "not an existing folder"),
        (lambda tmp: "/", "whole file system"),
        (lambda tmp: "/proc", "inside /proc"),
        (lambda tmp: "/dev", "inside /dev"),
        (lambda tmp: sys.prefix, "is a folder the server runs from"),
        (lambda tmp: str(Path(sys.prefix).parent), "a folder the server runs from"),
        (lambda tmp: sysconfig.get_path("purelib"), "a folder the server runs from"),
        (lambda tmp: os.path.dirname(os.__file__), "a folder the server runs from"),
        (lambda tmp: f"{tmp}/data/conversations", "is the server's own data"),
        (lambda tmp: f"{tmp}/data", "the server's own data"),
        (lambda tmp: str(tmp), "the server's own data"),
    ],
)
def test_unsafe_writable_folders_are_refused_with_the_reason(
    tmp_path: Path, data: tuple[str, ...], make: Callable[[Path], str], reason: str
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()

    problem = writable_problem(make(tmp_path), hidden=data)

    assert problem is not None and reason in problem, problem


def test_a_folder_of_its_own_may_be_writable(tmp_path: Path, data: tuple[str, ...]) -> None:
    shared = tmp_path / "shared-venv"
    shared.mkdir()

    assert writable_problem(str(shared), hidden=data) is None


def test_the_policy_refuses_an_unsafe_writable_folder_naming_the_variable(tmp_path: Path) -> None:
    with pytest.raises(InvalidSettingError, match="OH_SANDBOX_WRITABLE: / is the whole"):
        SandboxPolicy.from_env({"OH_SANDBOX": "bwrap", "OH_SANDBOX_WRITABLE": f"{tmp_path}, /"})
    with pytest.raises(ValueError, match="the server's own data"):
        SandboxPolicy(writable=(str(tmp_path),), hidden=(str(tmp_path / "conversations"),))
