"""The suite's own marks (tests/conftest.py): which tests are `slow`, which share a worker."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from agent_server.harness import ServerProcess

MODULE = "tests/test_suite_marks.py"


@pytest.fixture(scope="module")
def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A module-scoped fixture: its tests run on one worker under `--dist loadgroup`."""
    return tmp_path_factory.mktemp("shared")


@pytest.fixture(scope="module", params=["first", "second"])
def flavour(request: pytest.FixtureRequest) -> str:
    """A parametrized module-scoped fixture: each parameter is a group of its own."""
    return request.param


@pytest.fixture
def server_factory() -> Callable[[Path], ServerProcess]:
    """Makes (never starts here) a server process: its tests count as starting one."""
    return lambda root: ServerProcess(root / "conversations")


def _group(request: pytest.FixtureRequest) -> str | None:
    mark = request.node.get_closest_marker("xdist_group")
    return None if mark is None else mark.args[0]


def test_a_test_of_a_module_fixture_is_grouped_by_its_module(
    request: pytest.FixtureRequest, shared_folder: Path
) -> None:
    assert _group(request) == MODULE
    assert request.node.get_closest_marker("slow") is None


def test_each_parameter_of_a_module_fixture_is_its_own_group(
    request: pytest.FixtureRequest, flavour: str
) -> None:
    assert _group(request) == f"{MODULE}[flavour={flavour}]"


def test_a_test_of_function_fixtures_only_is_neither_grouped_nor_slow(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    assert _group(request) is None
    assert request.node.get_closest_marker("slow") is None


def test_a_test_whose_fixture_makes_a_server_process_is_slow(
    request: pytest.FixtureRequest, server_factory: Callable[[Path], ServerProcess]
) -> None:
    assert request.node.get_closest_marker("slow") is not None
    assert _group(request) is None
