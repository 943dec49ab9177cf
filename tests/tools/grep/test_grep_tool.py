"""The grep tool: files whose content matches a regex, skipping binaries, bounded."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk.tool import DeclaredResources, Tool, ToolContext, resolve_tool
from openhands.tools.grep import GrepAction, GrepExecutor


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_files_whose_content_matches_are_listed(workspace: Path) -> None:
    hit = _write(workspace / "src" / "app.py", "def load_config():\n    pass\n")
    _write(workspace / "src" / "other.py", "print('nothing here')\n")
    observation = GrepExecutor(str(workspace))(GrepAction(pattern=r"def \w+_config"))
    assert observation.matches == [str(hit)]
    assert observation.text == str(hit)


def test_include_filters_by_file_name(workspace: Path) -> None:
    _write(workspace / "a.py", "TODO: fix")
    ts = _write(workspace / "b.ts", "// TODO later")
    _write(workspace / "c.md", "TODO docs")
    observation = GrepExecutor(str(workspace))(GrepAction(pattern="TODO", include="*.{ts,tsx}"))
    assert observation.matches == [str(ts)]
    assert observation.include_pattern == "*.{ts,tsx}"


def test_binary_files_and_vcs_folders_are_skipped(workspace: Path) -> None:
    _write(workspace / "blob.bin", b"\x00\x01needle")
    _write(workspace / ".git" / "HEAD", "needle")
    text = _write(workspace / "notes.txt", "a needle")
    assert GrepExecutor(str(workspace))(GrepAction(pattern="needle")).matches == [str(text)]


def test_a_bad_regex_is_an_error_observation(workspace: Path) -> None:
    observation = GrepExecutor(str(workspace))(GrepAction(pattern="(unclosed"))
    assert observation.is_error and "missing )" in observation.text
    assert observation.text.startswith("Invalid regex pattern")


def test_the_match_ignores_case(workspace: Path) -> None:
    hit = _write(workspace / "shout.py", "PRINT('loud')")
    assert GrepExecutor(str(workspace))(GrepAction(pattern="print")).matches == [str(hit)]


def test_hidden_files_and_folders_are_skipped_unless_searched_directly(workspace: Path) -> None:
    visible = _write(workspace / "visible.py", "needle")
    _write(workspace / ".hidden.py", "needle")
    inside = _write(workspace / ".github" / "ci.yml", "needle")
    executor = GrepExecutor(str(workspace))

    assert executor(GrepAction(pattern="needle")).matches == [str(visible)]
    assert executor(GrepAction(pattern="needle", path=".github")).matches == [str(inside)]


def test_a_missing_search_path_is_an_error_observation(workspace: Path) -> None:
    observation = GrepExecutor(str(workspace))(GrepAction(pattern="x", path="nowhere"))
    assert observation.is_error and "is not a valid directory" in observation.text


def test_searches_may_run_beside_other_calls_and_need_an_existing_workspace(
    workspace: Path,
) -> None:
    [tool] = resolve_tool(Tool(name="grep"), ToolContext(working_dir=str(workspace)))
    assert tool.declared_resources(GrepAction(pattern="x")) == DeclaredResources(declared=True)
    with pytest.raises(ValueError, match="is not a valid directory"):
        resolve_tool(Tool(name="grep"), ToolContext(working_dir=str(workspace / "missing")))


def test_no_match_says_so(workspace: Path) -> None:
    _write(workspace / "a.txt", "hay")
    assert GrepExecutor(str(workspace))(GrepAction(pattern="needle")).text == (
        "No matching files found."
    )


@pytest.mark.parametrize("name", ["grep", "GrepTool"])
def test_the_tool_resolves_by_name(name: str, workspace: Path) -> None:
    [tool] = resolve_tool(Tool(name=name), ToolContext(working_dir=str(workspace)))
    assert tool.name == "grep"
