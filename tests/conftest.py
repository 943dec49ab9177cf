"""Fixtures every test directory may use. Area fixtures live in each area's conftest.py."""

from __future__ import annotations

import functools
import os
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from child_processes import Sleeper

# litellm must never fetch its price map from the network in tests (set before any import).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

pytest_plugins = ["litellm_guard"]
"""No process the tests start may import litellm unless its test allows it (litellm_guard.py)."""

SLOW_DIRS = ("e2e", "cross", "interop", "reliability", "temporal", "conformance")
"""Test folders that start servers, browsers or clusters: every test in them is `slow`."""

PER_WORKER_FIXTURES = frozenset({"browser_runtime"})
"""Session fixtures each worker starts its own of (cheap next to what they save): they do not
pull their area's modules onto one worker, as other session fixtures do."""

SERVER_STARTERS = frozenset({"ServerProcess", "live_server", "TemporalDevServer", "Worker"})
"""Names of what starts a server process (the harnesses' classes): a test whose own code or
any of whose fixtures names one is `slow`, wherever it lives."""


def pytest_configure(config: pytest.Config) -> None:
    """`OH_SANDBOX=bwrap pytest` runs the whole suite with every agent process sandboxed (SDK
    and servers alike); refuse to start when it asks for a sandbox that cannot run here."""
    from openhands.sdk.workspace import sandbox_status

    if os.environ.get("OH_SANDBOX", "").strip().lower() == "bwrap":
        status = sandbox_status()
        if not status.active:
            pytest.exit(f"OH_SANDBOX=bwrap, but {status.warning}", returncode=4)


def pytest_report_header(config: pytest.Config) -> str:
    """Say which sandbox the agent's processes get in this run."""
    mode = os.environ.get("OH_SANDBOX") or "unset (SDK: off, servers: auto)"
    return f"sandbox: OH_SANDBOX={mode}"


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (it names them in node ids)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of SLOW_DIRS `slow`, so `pytest -m "not slow"` is the quick loop; group
    the tests that share a module-scoped fixture (`xdist_group`, see `module_group`)."""
    tests_root = Path(__file__).parent
    for item in items:
        parts = Path(item.path).relative_to(tests_root).parts
        if (parts and parts[0] in SLOW_DIRS) or starts_a_server(item):
            item.add_marker(pytest.mark.slow)
    for item, group in _with_session_homes(items):
        item.add_marker(pytest.mark.xdist_group(group))


def _with_session_homes(items: list[pytest.Item]) -> list[tuple[pytest.Item, str]]:
    """Each grouped test and its group: a module whose tests use a session fixture of an
    area (the reference's servers, Temporal) joins that area's group, whatever the fixture's
    parameters, so each of the area's session fixtures starts once, on one worker, not on
    each worker that gets one of the area's modules (or parameters)."""
    groups = [(item, module_group(item)) for item in items]
    homes: dict[str, str] = {}
    for item, group in groups:
        home = session_home(item)
        if group is not None and home is not None:
            homes.setdefault(item.nodeid.split("::")[0], home)
    moved = []
    for item, group in groups:
        if group is None:
            continue
        module = item.nodeid.split("::")[0]
        home = homes.get(module)
        moved.append((item, group if home is None else home))
    return moved


def session_home(item: pytest.Item) -> str | None:
    """The folder of the first session-scoped suite fixture the test uses, else None."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    homes = sorted(
        definitions[-1].baseid
        for name, definitions in info.name2fixturedefs.items()
        if definitions
        and definitions[-1].scope == "session"
        and definitions[-1].baseid
        and name not in PER_WORKER_FIXTURES
    )
    return homes[0] if homes else None


def starts_a_server(item: pytest.Item) -> bool:
    """Whether the test or one of its fixtures starts a server process (SERVER_STARTERS)."""
    functions = [getattr(item, "function", None)]
    info = getattr(item, "_fixtureinfo", None)
    if info is not None:
        functions += [d[-1].func for d in info.name2fixturedefs.values() if d]
    return any(_calls_a_starter(function) for function in functions if function is not None)


def _calls_a_starter(function: Callable[..., object]) -> bool:
    code = getattr(function, "__code__", None)
    return isinstance(code, types.CodeType) and _names_a_starter(code)


@functools.cache
def _names_a_starter(code: types.CodeType) -> bool:
    """Whether the code (or a function or lambda inside it) names a SERVER_STARTERS entry: the
    compiled names, not the source text, which costs ~1 s per collection to read."""
    if not SERVER_STARTERS.isdisjoint(code.co_names):
        return True
    return any(
        isinstance(const, types.CodeType) and _names_a_starter(const) for const in code.co_consts
    )


def module_group(item: pytest.Item) -> str | None:
    """The xdist group of a test that uses a fixture of the suite shared beyond one test
    (module or session scope): its module (and the parameters of such fixtures), else None.

    Under `--dist loadgroup` (`make test`) a group runs on one worker, so a module's server,
    browser or driver starts once, and a session's (Temporal, the reference's servers) on
    fewer workers, not on every worker that gets one of the module's tests; the other tests
    are handed out one by one to whichever worker is free, the largest groups first.
    """
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    params = getattr(getattr(item, "callspec", None), "params", {})
    shared = [
        name
        for name, definitions in info.name2fixturedefs.items()
        if definitions and _shared(definitions[-1])
    ]
    if not shared:
        return None
    module = item.nodeid.split("::")[0]
    keys = [f"{name}={params[name]}" for name in sorted(shared) if name in params]
    return module + "".join(f"[{key}]" for key in keys)


@pytest.fixture
def workspace_dir(tmp_path: Path) -> Path:
    """An empty working directory for an agent, inside the test's tmp_path."""
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def persistence_dir(tmp_path: Path) -> Path:
    """A folder where conversations persist (`<persistence_dir>/<id.hex>/...`)."""
    path = tmp_path / "conversations"
    path.mkdir()
    return path


@pytest.fixture
def sleeper() -> Iterator[Sleeper]:
    """A unique `sleep` command; anything still running it is killed at teardown."""
    made = Sleeper()
    yield made
    made.kill()


def _shared(definition: pytest.FixtureDef[object]) -> bool:
    """A fixture of the suite (not of pytest or a plugin) that outlives one test."""
    if definition.scope in ("module", "package"):
        return True
    return definition.scope == "session" and bool(definition.baseid)
