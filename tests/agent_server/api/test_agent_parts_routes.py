"""/api/hooks, /api/tools and /api/sub-agents: what an agent may be built from."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ..harness import ServerProcess
from .extension_fixtures import extension_server

pytestmark = pytest.mark.slow

HOOKS = {"stop": [{"matcher": "*", "hooks": [{"type": "command", "command": "pytest -q"}]}]}


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("parts-server")
    agents = root / "home" / ".openhands" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: The user's reviewer.\ntools: [terminal]\n---\nReview.\n"
    )
    process = extension_server(root).start()
    yield process
    process.stop()


@pytest.fixture
def api(keyed: ServerProcess) -> Iterator[httpx.Client]:
    with keyed.client() as client:
        yield client


def test_project_hooks_are_read_from_their_file(api: httpx.Client, tmp_path: Path) -> None:
    (tmp_path / ".openhands").mkdir()
    (tmp_path / ".openhands" / "hooks.json").write_text(json.dumps(HOOKS))
    found = api.post("/api/hooks", json={"project_dir": str(tmp_path)}).json()["hook_config"]
    assert found["stop"][0]["hooks"][0]["command"] == "pytest -q"
    empty = tmp_path / "none"
    empty.mkdir()
    assert api.post("/api/hooks", json={"project_dir": str(empty)}).json() == {"hook_config": None}
    assert api.post("/api/hooks", json={}).json() == {"hook_config": None}
    relative = api.post("/api/hooks", json={"project_dir": "here"})
    assert relative.status_code == 422 and "project_dir" in relative.json()["message"]


def test_a_hooks_file_the_sandbox_hides_is_not_read(
    api: httpx.Client, keyed: ServerProcess, tmp_path: Path
) -> None:
    if not api.get("/server_info").json()["sandbox"]["active"]:
        pytest.skip("the agent's processes run without a sandbox here (OH_SANDBOX)")
    secret = keyed.conversations / "hooks.json"
    secret.write_text(json.dumps(HOOKS))
    (tmp_path / ".openhands").mkdir()
    (tmp_path / ".openhands" / "hooks.json").symlink_to(secret)
    assert api.post("/api/hooks", json={"project_dir": str(tmp_path)}).json() == {
        "hook_config": None
    }
    denied = api.post("/api/hooks", json={"project_dir": str(keyed.conversations)})
    assert denied.status_code == 403


def test_the_tools_are_listed_and_described(api: httpx.Client) -> None:
    names = api.get("/api/tools/").json()
    assert {"terminal", "TerminalTool", "file_editor"} <= set(names)
    catalog = {t["name"]: t for t in api.get("/api/tools/catalog").json()["tools"]}
    assert catalog["terminal"]["in_default_set"] is True
    assert catalog["terminal"]["description"].startswith("Run a bash command")
    assert catalog["grep"]["in_default_set"] is False
    assert catalog["finish"]["user_selectable"] is False
    assert "TerminalTool" not in catalog


def test_sub_agents_come_from_the_project_the_user_and_the_built_ins(
    api: httpx.Client, tmp_path: Path
) -> None:
    agents = tmp_path / ".agents" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: The project's reviewer.\n---\nReview here.\n"
    )
    found = api.post("/api/sub-agents", json={"project_dir": str(tmp_path)}).json()["agents"]
    by_name = {a["name"]: a for a in found}
    assert (by_name["reviewer"]["level"], by_name["reviewer"]["system_prompt"]) == (
        "project",
        "Review here.",
    )
    builtins = [a for a in found if a["is_builtin"]]
    assert builtins and all(a["level"] == "builtin" for a in builtins)
    user_only = api.post(
        "/api/sub-agents", json={"load_project": False, "load_builtin": False}
    ).json()["agents"]
    assert [(a["name"], a["level"], a["tools"]) for a in user_only] == [
        ("reviewer", "user", ["terminal"])
    ]
    bad = api.post("/api/sub-agents", json={"load_user": "sometimes"})
    assert bad.status_code == 422 and "load_user" in bad.json()["message"]


def test_every_route_needs_the_key(keyed: ServerProcess) -> None:
    with keyed.client(api_key="") as anonymous:
        answers = [
            anonymous.post("/api/hooks", json={}),
            anonymous.get("/api/tools/"),
            anonymous.get("/api/tools/catalog"),
            anonymous.post("/api/sub-agents", json={}),
        ]
    assert [a.status_code for a in answers] == [401] * len(answers)
