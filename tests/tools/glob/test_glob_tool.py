"""The glob tool: files by name pattern, newest first, bounded, inside the search folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from openhands.sdk.tool import DeclaredResources, Tool, ToolContext, resolve_tool
from openhands.tools.file_search import MAX_RESULTS
from openhands.tools.glob import GlobAction, GlobExecutor


def _touch(path: Path, mtime: float = 1_000_000.0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x", encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


def test_matches_come_newest_first(workspace: Path) -> None:
    old = _touch(workspace / "src" / "old.py", 1_000)
    new = _touch(workspace / "new.py", 2_000)
    _touch(workspace / "notes.txt")
    observation = GlobExecutor(str(workspace))(GlobAction(pattern="**/*.py"))
    assert observation.files == [str(new), str(old)]
    assert observation.text == f"{new}\n{old}"
    assert observation.search_path == str(workspace)


def test_braces_list_alternatives(workspace: Path) -> None:
    _touch(workspace / "a.json")
    _touch(workspace / "b.toml")
    _touch(workspace / "c.yaml")
    observation = GlobExecutor(str(workspace))(GlobAction(pattern="*.{json,toml}"))
    assert sorted(Path(f).name for f in observation.files) == ["a.json", "b.toml"]


def test_a_relative_path_narrows_the_search(workspace: Path) -> None:
    _touch(workspace / "src" / "a.py")
    _touch(workspace / "tests" / "b.py")
    observation = GlobExecutor(str(workspace))(GlobAction(pattern="*.py", path="src"))
    assert [Path(f).name for f in observation.files] == ["a.py"]


def test_version_control_and_dependency_folders_are_skipped(workspace: Path) -> None:
    _touch(workspace / ".git" / "config.py")
    _touch(workspace / "node_modules" / "x" / "index.py")
    kept = _touch(workspace / "kept.py")
    assert GlobExecutor(str(workspace))(GlobAction(pattern="**/*.py")).files == [str(kept)]


def test_results_are_capped_and_the_rest_counted(workspace: Path) -> None:
    for n in range(MAX_RESULTS + 5):
        _touch(workspace / f"f{n:03}.txt")
    observation = GlobExecutor(str(workspace))(GlobAction(pattern="*.txt"))
    assert len(observation.files) == MAX_RESULTS and observation.truncated
    assert "[5 more files not shown" in observation.text


def test_no_match_says_so(workspace: Path) -> None:
    observation = GlobExecutor(str(workspace))(GlobAction(pattern="*.rs"))
    assert observation.text == "No files found." and not observation.is_error


@pytest.mark.parametrize(
    ("pattern", "path", "says"),
    [
        ("../*", None, "must stay inside `path`"),
        ("/etc/*", None, "must stay inside `path`"),
        ("*", "missing-folder", "is not a valid directory"),
    ],
)
def test_bad_patterns_and_paths_are_error_observations(
    workspace: Path, pattern: str, path: str | None, says: str
) -> None:
    observation = GlobExecutor(str(workspace))(GlobAction(pattern=pattern, path=path))
    assert observation.is_error and says in observation.text


@pytest.mark.parametrize("name", ["glob", "GlobTool"])
def test_the_tool_resolves_by_name(name: str, workspace: Path) -> None:
    [tool] = resolve_tool(Tool(name=name), ToolContext(working_dir=str(workspace)))
    assert tool.name == "glob"


def test_listings_may_run_beside_other_calls_and_need_an_existing_workspace(
    workspace: Path,
) -> None:
    [tool] = resolve_tool(Tool(name="glob"), ToolContext(working_dir=str(workspace)))
    assert tool.declared_resources(GlobAction(pattern="*")) == DeclaredResources(declared=True)
    with pytest.raises(ValueError, match="is not a valid directory"):
        resolve_tool(Tool(name="glob"), ToolContext(working_dir=str(workspace / "missing")))
