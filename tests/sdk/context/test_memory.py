"""load_memory: the user and project MEMORY.md indexes, within a character budget."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk.context import load_memory
from openhands.sdk.context.memory import MEMORY_INDEX_RELPATH, TRUNCATED_NOTICE


def _index(root: Path, text: str) -> None:
    path = root / MEMORY_INDEX_RELPATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_no_index_means_no_memory(tmp_path: Path) -> None:
    assert load_memory(tmp_path / "work", home=tmp_path / "home") is None


def test_user_tier_comes_before_the_project_tier(tmp_path: Path) -> None:
    _index(tmp_path / "home", "prefers tabs")
    _index(tmp_path / "work", "uses uv")

    memory = load_memory(tmp_path / "work", home=tmp_path / "home")

    assert memory is not None
    assert memory.index("prefers tabs") < memory.index("uses uv")
    assert "# User memory" in memory and "# Project memory" in memory


def test_an_empty_index_counts_as_none(tmp_path: Path) -> None:
    _index(tmp_path / "work", "   \n")

    assert load_memory(tmp_path / "work", home=tmp_path / "home") is None


def test_over_budget_the_newest_lines_and_the_headings_are_kept(tmp_path: Path) -> None:
    _index(tmp_path / "work", "\n".join(f"fact {i:03d}" for i in range(200)))

    memory = load_memory(tmp_path / "work", 300, home=tmp_path / "home")

    assert memory is not None
    assert len(memory) <= 300
    assert memory.startswith("# Project memory")
    assert TRUNCATED_NOTICE in memory
    assert memory.endswith("fact 199")
    assert "fact 000" not in memory
