"""Editing with file_editor: create, str_replace, insert, undo_edit."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from openhands.tools.file_editor import FileEditorObservation

Edit = Callable[..., FileEditorObservation]


def test_create_writes_the_file_and_its_parent_folders(edit: Edit, workspace: Path) -> None:
    obs = edit("create", "new/dir/file.py", file_text="print('hi')\n")
    assert not obs.is_error
    assert (workspace / "new" / "dir" / "file.py").read_text() == "print('hi')\n"


def test_create_refuses_to_overwrite(edit: Edit, workspace: Path) -> None:
    (workspace / "a.txt").write_text("keep me\n")
    obs = edit("create", "a.txt", file_text="clobber\n")
    assert obs.is_error
    assert "already exists" in obs.text
    assert (workspace / "a.txt").read_text() == "keep me\n"


def test_create_without_file_text_is_an_error(edit: Edit) -> None:
    obs = edit("create", "a.txt")
    assert obs.is_error
    assert "file_text" in obs.text


def test_str_replace_replaces_the_unique_match(edit: Edit, workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\ny = 2\n")
    obs = edit("str_replace", "a.py", old_str="y = 2", new_str="y = 3")
    assert not obs.is_error
    assert (workspace / "a.py").read_text() == "x = 1\ny = 3\n"
    assert "     2\ty = 3" in obs.text


def test_str_replace_with_no_match_is_an_error(edit: Edit, workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    obs = edit("str_replace", "a.py", old_str="z = 9", new_str="z = 0")
    assert obs.is_error
    assert "did not appear verbatim" in obs.text
    assert (workspace / "a.py").read_text() == "x = 1\n"


def test_str_replace_forgives_surrounding_whitespace_when_the_rest_is_unique(
    edit: Edit, workspace: Path
) -> None:
    (workspace / "notes.md").write_text("hello world\nsecond line\n")

    obs = edit("str_replace", "notes.md", old_str=" hello world\n", new_str="HELLO WORLD  ")

    assert not obs.is_error and "whitespace was ignored" in obs.text
    # new_str keeps its own whitespace (a Markdown line break); the matched text had none.
    assert (workspace / "notes.md").read_text() == "HELLO WORLD  \nsecond line\n"


def test_whitespace_is_not_forgiven_when_the_stripped_text_is_not_unique(
    edit: Edit, workspace: Path
) -> None:
    (workspace / "a.py").write_text("pass\npass\n")
    obs = edit("str_replace", "a.py", old_str=" pass ", new_str="return")
    assert obs.is_error and "did not appear verbatim" in obs.text
    assert (workspace / "a.py").read_text() == "pass\npass\n"


def test_str_replace_with_several_matches_names_their_lines(edit: Edit, workspace: Path) -> None:
    (workspace / "a.py").write_text("pass\nx = 1\npass\npass\n")
    obs = edit("str_replace", "a.py", old_str="pass", new_str="return")
    assert obs.is_error
    assert "3 times" in obs.text
    assert "[1, 3, 4]" in obs.text
    assert (workspace / "a.py").read_text() == "pass\nx = 1\npass\npass\n"


def test_str_replace_with_empty_new_str_deletes(edit: Edit, workspace: Path) -> None:
    (workspace / "a.txt").write_text("keep\ndrop\n")
    edit("str_replace", "a.txt", old_str="drop\n")
    assert (workspace / "a.txt").read_text() == "keep\n"


def test_str_replace_keeps_crlf_line_endings(edit: Edit, workspace: Path) -> None:
    (workspace / "win.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    obs = edit("str_replace", "win.txt", old_str="a\nb", new_str="A\nB")
    assert not obs.is_error
    assert (workspace / "win.txt").read_bytes() == b"A\r\nB\r\nc\r\n"


def test_str_replace_refuses_binary_files(edit: Edit, workspace: Path) -> None:
    (workspace / "blob.bin").write_bytes(b"abc\x00def")
    obs = edit("str_replace", "blob.bin", old_str="abc", new_str="xyz")
    assert obs.is_error
    assert "binary" in obs.text
    assert (workspace / "blob.bin").read_bytes() == b"abc\x00def"


def test_non_utf8_text_is_refused(edit: Edit, workspace: Path) -> None:
    (workspace / "latin.txt").write_bytes("café".encode("latin-1"))
    obs = edit("str_replace", "latin.txt", old_str="caf", new_str="tea")
    assert obs.is_error
    assert "UTF-8" in obs.text


def test_insert_at_zero_puts_text_at_the_top(edit: Edit, workspace: Path) -> None:
    (workspace / "a.txt").write_text("b\nc\n")
    edit("insert", "a.txt", insert_line=0, new_str="a")
    assert (workspace / "a.txt").read_text() == "a\nb\nc\n"


def test_insert_after_a_line(edit: Edit, workspace: Path) -> None:
    (workspace / "a.txt").write_text("a\nc")
    edit("insert", "a.txt", insert_line=1, new_str="b\n")
    assert (workspace / "a.txt").read_text() == "a\nb\nc"


def test_insert_at_the_end_of_a_file_without_final_newline(edit: Edit, workspace: Path) -> None:
    (workspace / "a.txt").write_text("a")
    edit("insert", "a.txt", insert_line=1, new_str="b")
    assert (workspace / "a.txt").read_text() == "a\nb\n"


def test_insert_out_of_range_is_an_error(edit: Edit, workspace: Path) -> None:
    (workspace / "a.txt").write_text("a\nb\n")
    obs = edit("insert", "a.txt", insert_line=5, new_str="x")
    assert obs.is_error
    assert "0 to 2" in obs.text


def test_undo_restores_the_previous_content_step_by_step(edit: Edit, workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_text("v1\n")
    edit("str_replace", "a.txt", old_str="v1", new_str="v2")
    edit("str_replace", "a.txt", old_str="v2", new_str="v3")
    edit("undo_edit", "a.txt")
    assert target.read_text() == "v2\n"
    edit("undo_edit", "a.txt")
    assert target.read_text() == "v1\n"
    obs = edit("undo_edit", "a.txt")
    assert obs.is_error
    assert "No edit to undo" in obs.text


def test_undo_of_create_removes_the_file(edit: Edit, workspace: Path) -> None:
    edit("create", "made.txt", file_text="x\n")
    edit("undo_edit", "made.txt")
    assert not (workspace / "made.txt").exists()


def test_relative_and_absolute_paths_name_the_same_file(edit: Edit, workspace: Path) -> None:
    edit("create", "same.txt", file_text="x\n")
    obs = edit("str_replace", str(workspace / "same.txt"), old_str="x", new_str="y")
    assert not obs.is_error
    edit("undo_edit", "same.txt")
    assert (workspace / "same.txt").read_text() == "x\n"


@pytest.mark.timeout(30)
def test_str_replace_on_a_fifo_is_refused_without_blocking(edit: Edit, workspace: Path) -> None:
    os.mkfifo(workspace / "pipe")
    obs = edit("str_replace", "pipe", old_str="a", new_str="b")
    assert obs.is_error
    assert "not a regular file" in obs.text
