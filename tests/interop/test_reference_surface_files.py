"""The reference SDK (1.57 and 1.58.2, from PyPI, with the reference's Python) on this
server's git, bash, file, skill, plugin, hook, tool and sub-agent routes: its own client code
(`RemoteWorkspace`) works, and its own answer models validate every answer."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from interop_env import ReferenceRunner, ServerProcess, quiet_env

pytestmark = pytest.mark.timeout(900)

KEY = "surface-files-key"
GIT = ["git", "-c", "user.name=T", "-c", "user.email=t@e", "-c", "init.defaultBranch=main"]


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A public skills catalog with one skill and one plugin in its marketplace."""
    root = tmp_path_factory.mktemp("catalog")
    skill = root / "skills" / "alpha"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: alpha\ndescription: A.\n---\nDo A.\n")
    plugin = root / "plugins" / "city-weather" / ".plugin"
    plugin.mkdir(parents=True)
    (plugin / "plugin.json").write_text(json.dumps({"name": "city-weather"}))
    (root / ".plugin").mkdir()
    marketplace = {
        "name": "catalog",
        "plugins": [{"name": "city-weather", "source": "./plugins/city-weather"}],
        "skills": [{"name": "alpha", "source": "./skills/alpha"}],
    }
    (root / ".plugin" / "marketplace.json").write_text(json.dumps(marketplace))
    return root


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, catalog: Path) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("surface-server")
    env = quiet_env(root) | {
        "OH_SESSION_API_KEYS": KEY,
        "OH_CONVERSATIONS_PATH": str(root / "conversations"),
        "OH_WORKSPACE_PATH": str(root / "workspaces"),
        "OH_PUBLIC_SKILLS_SOURCE": str(catalog),
        "OH_BASH_STREAM_SECONDS": "0.1",
    }
    process = ServerProcess([sys.executable, "-m", "openhands.agent_server"], env, root, KEY)
    yield process.start()
    process.stop()


def project(tmp_path: Path) -> dict[str, str]:
    """A working directory holding a repository with a change, a skill and a plugin."""
    work = tmp_path / "project"
    repo = work / "repo"
    repo.mkdir(parents=True)
    subprocess.run([*GIT, "init", "-q"], cwd=repo, check=True)
    (repo / "tracked.txt").write_text("one\n")
    subprocess.run([*GIT, "add", "."], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "c"], cwd=repo, check=True)
    (repo / "tracked.txt").write_text("one\ntwo\n")
    (repo / "new.txt").write_text("new\n")
    skill = tmp_path / "sources" / "gamma"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: gamma\ndescription: G.\n---\nDo G.\n")
    plugin = tmp_path / "sources" / "dash-board"
    (plugin / ".plugin").mkdir(parents=True)
    (plugin / ".plugin" / "plugin.json").write_text(json.dumps({"name": "dash-board"}))
    return {"working_dir": str(work), "skill_source": str(skill), "plugin_source": str(plugin)}


def test_the_reference_clients_and_models_accept_every_answer(
    any_reference_python: Path,
    reference_runner: Callable[[Path], ReferenceRunner],
    server: ServerProcess,
    tmp_path: Path,
) -> None:
    config: dict[str, Any] = {
        "host": server.url,
        "key": KEY,
        "model": "openai/none",
        "base_url": "http://127.0.0.1:9",
        **project(tmp_path),
    }
    result = reference_runner(any_reference_python).run(
        "surface", config, tmp_path, script="surface_files.py", timeout=600
    )

    assert result["invalid"] == {}
    assert result["routes"] == 58  # every operation of these families (docs/compatibility.md)
    expected_changes = [["ADDED", "new.txt"], ["UPDATED", "tracked.txt"]]
    for form in ("server", "conversation"):
        seen = result["clients"][form]
        assert seen["upload"] == [True, len(f"hello from {form}"), None]
        assert seen["download"] == [True, f"hello from {form}"]
        assert seen["command"][0:2] == [3, "firstsecond"]  # joined from streamed chunks
        assert seen["changes"] == expected_changes
        assert seen["diff"] == ["one", "one\ntwo"]
    assert result["clients"]["outside_refused"] is True
