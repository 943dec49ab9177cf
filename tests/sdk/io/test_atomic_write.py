"""write_atomic: the new content or the old one, never a torn file nor a leftover temp file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from openhands.sdk.errors import StorageError, StorageFullError
from openhands.sdk.io import fsync_dir, write_atomic


def test_write_atomic_replaces_the_file_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old")

    write_atomic(target, '{"new": true}')

    assert target.read_text() == '{"new": true}'
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_write_atomic_creates_a_missing_file_from_bytes(tmp_path: Path) -> None:
    write_atomic(tmp_path / "blob", b"\x00\x01")

    assert (tmp_path / "blob").read_bytes() == b"\x00\x01"


def test_a_refused_write_keeps_the_previous_file_and_raises_storage_error(
    tmp_path: Path, file_size_limit
) -> None:
    target = tmp_path / "state.json"
    target.write_text("previous content")

    with file_size_limit(64), pytest.raises(StorageError, match=r"state\.json") as caught:
        write_atomic(target, "x" * 10_000)

    assert not isinstance(caught.value, StorageFullError)  # EFBIG is not a full disk
    assert target.read_text() == "previous content"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_missing_folder_is_a_storage_error_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="nowhere"):
        write_atomic(tmp_path / "nowhere" / "state.json", "x")


def test_fsync_dir_accepts_a_folder(tmp_path: Path) -> None:
    fsync_dir(tmp_path)  # no error: the folder's entries are durable

    with pytest.raises(OSError):
        fsync_dir(tmp_path / "missing")


def _aged(path: Path, text: str = "{}") -> Path:
    """`path` written, with a change time an hour ago (before this process started)."""
    import time as _time

    path.write_text(text)
    old = _time.time() - 3600
    os.utime(path, (old, old))
    return path


def test_leftover_temp_files_of_killed_writes_are_removed(tmp_path: Path) -> None:
    from openhands.sdk.io import remove_leftover_temp_files

    left = _aged(tmp_path / ".settings.json.ab12cd34.tmp")
    other = _aged(tmp_path / ".profile.json.zz_9y8x7.tmp")
    real = _aged(tmp_path / "settings.json")
    unrelated = _aged(tmp_path / "notes.tmp")
    folder = tmp_path / ".dir.json.ab12cd34.tmp"
    folder.mkdir()

    assert remove_leftover_temp_files(tmp_path, ["settings.json"]) == [left]
    assert other.exists()
    assert remove_leftover_temp_files(tmp_path) == [other]
    assert real.exists() and unrelated.exists() and folder.is_dir()


def test_a_temp_file_newer_than_this_process_is_kept(tmp_path: Path) -> None:
    from openhands.sdk.io import remove_leftover_temp_files

    live = tmp_path / ".settings.json.ab12cd34.tmp"
    live.write_text("{}")  # another writer, started after us, is about to rename it

    assert remove_leftover_temp_files(tmp_path) == []
    assert live.exists()
    assert remove_leftover_temp_files(tmp_path / "missing") == []


def test_a_forked_process_counts_its_start_from_the_fork(tmp_path: Path) -> None:
    """A server forked from a process that imported the SDK earlier (a preloading supervisor)
    removes what a process killed before the fork left, not only files older than the import."""
    from openhands.sdk.io import remove_leftover_temp_files

    left = tmp_path / ".settings.json.ab12cd34.tmp"
    left.write_text("{}")  # newer than this process's import of the module
    assert remove_leftover_temp_files(tmp_path) == []
    pid = os.fork()
    if pid == 0:
        os._exit(0 if remove_leftover_temp_files(tmp_path) == [left] else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert not left.exists()
