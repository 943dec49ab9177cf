"""Finding agent files: which folders, which files, and who wins a name."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from openhands.sdk.subagent import (
    discover_agents,
    load_agents_from_dir,
    load_project_agents,
    load_user_agents,
)


def _agent(folder: Path, file: str, name: str, description: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / file).write_text(
        f"---\nname: {name}\ndescription: {description or name}\n---\nprompt of {name}\n",
        encoding="utf-8",
    )


def test_only_top_level_markdown_files_are_read_in_name_order(tmp_path: Path) -> None:
    _agent(tmp_path, "b.md", "beta")
    _agent(tmp_path, "a.md", "alpha")
    _agent(tmp_path / "sub", "c.md", "nested")
    (tmp_path / "README.md").write_text("---\nname: readme\n---\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("---\nname: text\n---\n", encoding="utf-8")
    assert [d.name for d in load_agents_from_dir(tmp_path)] == ["alpha", "beta"]


def test_a_missing_folder_has_no_agents(tmp_path: Path) -> None:
    assert load_agents_from_dir(tmp_path / "absent") == []


def test_a_bad_file_is_logged_and_the_others_are_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _agent(tmp_path, "a.md", "alpha")
    (tmp_path / "broken.md").write_text("---\nname: [oops\n---\n", encoding="utf-8")
    _agent(tmp_path, "c.md", "gamma")
    with caplog.at_level(logging.WARNING):
        found = load_agents_from_dir(tmp_path)
    assert [d.name for d in found] == ["alpha", "gamma"]
    assert "broken.md" in caplog.text


def test_project_agents_prefer_dot_agents_over_dot_openhands(tmp_path: Path) -> None:
    _agent(tmp_path / ".agents/agents", "x.md", "shared", "from .agents")
    _agent(tmp_path / ".openhands/agents", "x.md", "shared", "from .openhands")
    _agent(tmp_path / ".openhands/agents", "y.md", "legacy")
    found = {d.name: d.description for d in load_project_agents(tmp_path)}
    assert found == {"shared": "from .agents", "legacy": "legacy"}


def test_user_agents_come_from_the_home_folder(home: Path) -> None:
    _agent(home / ".openhands/agents", "u.md", "mine")
    assert [d.name for d in load_user_agents()] == ["mine"]


def test_discovery_marks_levels_and_project_beats_user(tmp_path: Path, home: Path) -> None:
    project = tmp_path / "project"
    _agent(project / ".agents/agents", "x.md", "shared", "project copy")
    _agent(home / ".agents/agents", "x.md", "shared", "user copy")
    _agent(home / ".agents/agents", "y.md", "only-user")
    found = {d.name: (d.level, d.description) for d in discover_agents(project)}
    assert found == {"shared": ("project", "project copy"), "only-user": ("user", "only-user")}


def test_discovery_can_leave_out_either_level(tmp_path: Path, home: Path) -> None:
    _agent(tmp_path / ".agents/agents", "p.md", "proj")
    _agent(home / ".agents/agents", "u.md", "usr")
    assert [d.name for d in discover_agents(tmp_path, include_user=False)] == ["proj"]
    assert [d.name for d in discover_agents(tmp_path, include_project=False)] == ["usr"]
    assert [d.name for d in discover_agents(None)] == ["usr"]
