"""/api/plugins: local plugins, pinning a source, installing and managing installed plugins,
the public catalog's plugins."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ..harness import ServerProcess
from .extension_fixtures import extension_server, write_plugin

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = extension_server(tmp_path_factory.mktemp("plugins-server")).start()
    yield process
    process.stop()


@pytest.fixture
def api(keyed: ServerProcess) -> Iterator[httpx.Client]:
    with keyed.client() as client:
        yield client


def installed_names(api: httpx.Client) -> list[str]:
    return [p["name"] for p in api.get("/api/plugins/installed").json()["plugins"]]


def test_an_installed_plugin_is_listed_with_its_contents_toggled_and_removed(
    api: httpx.Client, tmp_path: Path
) -> None:
    source = write_plugin(tmp_path, "dash-board", skill="charts")
    installed = api.post("/api/plugins/install", json={"source": str(source)})
    assert installed.status_code == 200, installed.text
    body = installed.json()
    assert (body["name"], body["version"], body["enabled"]) == ("dash-board", "2.0.0", True)
    assert {s["name"] for s in body["skills"]} == {"charts", "dash-board:forecast"}
    assert ".plugin/plugin.json" in body["files"] and "skills/charts/SKILL.md" in body["files"]
    assert "dash-board" in installed_names(api)

    listed = api.post("/api/plugins", json={"load_project": False}).json()["plugins"]
    assert "dash-board" in [p["name"] for p in listed]
    assert api.patch("/api/plugins/installed/dash-board", json={"enabled": False}).json() == {
        "name": "dash-board",
        "enabled": False,
    }
    listed = api.post("/api/plugins", json={"load_project": False}).json()["plugins"]
    assert "dash-board" not in [p["name"] for p in listed]
    assert api.get("/api/plugins/installed/dash-board").json()["enabled"] is False

    refreshed = api.post("/api/plugins/installed/dash-board/refresh")
    assert refreshed.status_code == 200, refreshed.text
    assert refreshed.json()["plugin"]["enabled"] is False  # a refresh keeps the state
    assert api.delete("/api/plugins/installed/dash-board").json() == {
        "message": "Plugin 'dash-board' uninstalled"
    }
    for answer in (
        api.get("/api/plugins/installed/dash-board"),
        api.patch("/api/plugins/installed/dash-board", json={"enabled": True}),
        api.delete("/api/plugins/installed/dash-board"),
        api.post("/api/plugins/installed/dash-board/refresh"),
    ):
        assert answer.status_code == 404


def test_install_conflicts_and_bad_sources(
    api: httpx.Client, keyed: ServerProcess, tmp_path: Path
) -> None:
    source = write_plugin(tmp_path, "twice")
    assert api.post("/api/plugins/install", json={"source": str(source)}).status_code == 200
    assert api.post("/api/plugins/install", json={"source": str(source)}).status_code == 409
    forced = api.post("/api/plugins/install", json={"source": str(source), "force": True})
    assert forced.status_code == 200
    api.delete("/api/plugins/installed/twice")

    broken = write_plugin(tmp_path, "broken")
    (broken / ".plugin" / "plugin.json").write_text("{not json")
    before = installed_names(api)
    cases = {str(broken): 422, str(tmp_path / "missing"): 400, "plugins/relative": 422}
    if api.get("/server_info").json()["sandbox"]["active"]:
        cases[str(keyed.conversations)] = 403
    for plugin_source, status in cases.items():
        answer = api.post("/api/plugins/install", json={"source": plugin_source})
        assert answer.status_code == status, (plugin_source, answer.text)
    assert installed_names(api) == before
    assert api.get("/api/plugins/installed/Not_Kebab").status_code == 422


def test_project_plugins_are_listed_and_win_a_name(api: httpx.Client, tmp_path: Path) -> None:
    project = tmp_path / "project"
    write_plugin(project / ".openhands" / "plugins", "local-tools", skill="lint")
    listed = api.post("/api/plugins", json={"project_dir": str(project)}).json()["plugins"]
    by_name = {p["name"]: p for p in listed}
    assert by_name["local-tools"]["path"] == str(project / ".openhands/plugins/local-tools")
    assert "lint" in {s["name"] for s in by_name["local-tools"]["skills"]}
    without = api.post(
        "/api/plugins", json={"project_dir": str(project), "load_project": False}
    ).json()["plugins"]
    assert "local-tools" not in [p["name"] for p in without]
    relative = api.post("/api/plugins", json={"project_dir": "project"})
    assert relative.status_code == 422 and "project_dir" in relative.json()["message"]


def test_fetch_pins_a_git_source_without_installing_it(api: httpx.Client, tmp_path: Path) -> None:
    repo = tmp_path / "weather.git"
    write_plugin(tmp_path / "work", "rain-check", skill="umbrella")
    work = tmp_path / "work" / "rain-check"
    git = ["git", "-c", "user.name=T", "-c", "user.email=t@e"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "."], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "p"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(repo)], check=True)
    commit = subprocess.run(
        ["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()

    answer = api.post(
        "/api/plugins/fetch",
        json={
            "source": "file://${PLUGIN_ROOT}/weather.git",
            "secrets": {"PLUGIN_ROOT": str(tmp_path)},
        },
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["resolved_ref"], body["skills"], body["commands"]) == (
        commit,
        ["umbrella"],
        ["forecast"],
    )
    assert body["manifest"]["name"] == "rain-check"
    assert body["source"] == "file://${PLUGIN_ROOT}/weather.git"  # the secret is not echoed
    assert "rain-check" not in installed_names(api)
    missing = api.post("/api/plugins/fetch", json={"source": "file://${NOPE}/x.git"})
    assert missing.status_code == 422 and missing.json()["detail"] == "missing_secret"
    gone = api.post("/api/plugins/fetch", json={"source": f"file://{tmp_path}/absent.git"})
    assert gone.status_code == 502
    assert api.post("/api/plugins/fetch", json={"source": "x", "timeout": 0}).status_code == 422


def test_the_marketplace_lists_true_plugins_with_their_contents(api: httpx.Client) -> None:
    plugins = api.get("/api/plugins/marketplace").json()["plugins"]
    assert [p["name"] for p in plugins] == ["city-weather"]
    [weather] = plugins
    assert weather["installed"] is False and weather["ref"] is None
    assert "weather-report" in {s["name"] for s in weather["skills"]}
    installed = api.post("/api/plugins/install", json={"source": weather["source"]})
    assert installed.status_code == 200, installed.text
    assert api.get("/api/plugins/marketplace").json()["plugins"][0]["installed"] is True
    api.delete("/api/plugins/installed/city-weather")


def test_every_route_needs_the_key(keyed: ServerProcess, tmp_path: Path) -> None:
    source = write_plugin(tmp_path, "no-key")
    with keyed.client(api_key="") as anonymous:
        answers = [
            anonymous.post("/api/plugins", json={}),
            anonymous.post("/api/plugins/fetch", json={"source": str(source)}),
            anonymous.post("/api/plugins/install", json={"source": str(source)}),
            anonymous.get("/api/plugins/installed"),
            anonymous.get("/api/plugins/installed/no-key"),
            anonymous.patch("/api/plugins/installed/no-key", json={"enabled": False}),
            anonymous.delete("/api/plugins/installed/no-key"),
            anonymous.post("/api/plugins/installed/no-key/refresh"),
            anonymous.get("/api/plugins/marketplace"),
        ]
    assert [a.status_code for a in answers] == [401] * len(answers)
    with keyed.client() as api:
        assert "no-key" not in installed_names(api)
