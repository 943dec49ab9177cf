"""write_atomic: the new content or the old one, never a torn file nor a leftover temp file."""

from __future__ import annotations

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
