"""Viewing with file_editor: numbered lines, ranges, paging, directories, binary refusal."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from openhands.tools.file_editor import FileEditorObservation
from openhands.tools.file_editor.views import MAX_VIEW_CHARS

Edit = Callable[..., FileEditorObservation]


def test_view_numbers_the_lines(edit: Edit, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    obs = edit("view", "a.txt")
    assert not obs.is_error
    assert "     1\talpha\n     2\tbeta" in obs.text
    assert obs.path == str(workspace / "a.txt")


def test_view_range_shows_only_those_lines(edit: Edit, workspace: Path) -> None:
    (workspace / "a.txt").write_text("".join(f"l{n}\n" for n in range(1, 11)))
    obs = edit("view", "a.txt", view_range=[3, 4])
    assert "\tl3\n" in obs.text and "\tl4\n" in obs.text
    assert "\tl2\n" not in obs.text and "\tl5" not in obs.text


def test_view_range_to_minus_one_reads_to_the_end(edit: Edit, workspace: Path) -> None:
    (workspace / "a.txt").write_text("".join(f"l{n}\n" for n in range(1, 11)))
    obs = edit("view", "a.txt", view_range=[9, -1])
    assert "\tl9\n" in obs.text and "\tl10\n" in obs.text


def test_view_range_past_the_end_is_an_error_naming_the_length(edit: Edit, workspace: Path) -> None:
    (workspace / "a.txt").write_text("one\ntwo\n")
    obs = edit("view", "a.txt", view_range=[5, 6])
    assert obs.is_error
    assert "only 2 lines" in obs.text


def test_big_file_view_shows_the_first_part_and_how_to_page(edit: Edit, workspace: Path) -> None:
    (workspace / "big.txt").write_text("".join(f"line number {n}\n" for n in range(1, 20001)))
    obs = edit("view", "big.txt")
    assert "\tline number 1\n" in obs.text
    assert "line number 20000" not in obs.text
    assert "view_range=[" in obs.text
    assert len(obs.text) < MAX_VIEW_CHARS + 500


def test_directory_view_lists_two_levels_and_skips_hidden(edit: Edit, workspace: Path) -> None:
    (workspace / "src" / "pkg" / "deep").mkdir(parents=True)
    (workspace / "src" / "pkg" / "deep" / "hidden_by_depth.py").write_text("")
    (workspace / "src" / "main.py").write_text("")
    (workspace / ".git").mkdir()
    (workspace / ".env").write_text("")
    obs = edit("view", str(workspace))
    lines = obs.text.splitlines()
    assert f"{workspace}/src/" in lines
    assert f"{workspace}/src/main.py" in lines
    assert f"{workspace}/src/pkg/" in lines
    assert not any("hidden_by_depth" in line or "/.git" in line or ".env" in line for line in lines)


def test_binary_file_is_refused(edit: Edit, workspace: Path) -> None:
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    obs = edit("view", "blob.bin")
    assert obs.is_error
    assert "binary" in obs.text


def test_missing_path_is_an_error(edit: Edit) -> None:
    obs = edit("view", "nope.txt")
    assert obs.is_error
    assert "does not exist" in obs.text


def test_absolute_paths_work_outside_the_workspace(edit: Edit, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("elsewhere\n")
    assert "elsewhere" in edit("view", str(outside)).text


def test_empty_file_view_says_it_is_empty(edit: Edit, workspace: Path) -> None:
    (workspace / "empty.txt").write_text("")
    obs = edit("view", "empty.txt")
    assert not obs.is_error
    assert "empty" in obs.text


@pytest.mark.timeout(30)
def test_fifo_is_refused_without_blocking(edit: Edit, workspace: Path) -> None:
    os.mkfifo(workspace / "pipe")
    obs = edit("view", "pipe")
    assert obs.is_error
    assert "not a regular file" in obs.text


def test_directory_with_a_non_utf8_file_name_gives_json_safe_output(
    edit: Edit, workspace: Path
) -> None:
    (workspace / os.fsdecode(b"caf\xe9.txt")).write_text("x")
    obs = edit("view", ".")
    assert "caf\ufffd.txt" in obs.text
    obs.model_dump_json()  # would raise on a lone surrogate


def test_non_utf8_text_view_says_so_and_how_to_edit_it(edit: Edit, workspace: Path) -> None:
    (workspace / "latin.txt").write_bytes("café = 1\n".encode("latin-1"))
    obs = edit("view", "latin.txt")
    assert not obs.is_error
    assert "caf\ufffd = 1" in obs.text
    assert "not valid UTF-8" in obs.text
    assert "terminal" in obs.text


def test_utf8_text_view_has_no_encoding_note(edit: Edit, workspace: Path) -> None:
    (workspace / "utf8.txt").write_text("café = 1\n", encoding="utf-8")
    assert "not valid UTF-8" not in edit("view", "utf8.txt").text
