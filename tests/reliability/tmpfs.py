"""A small real file system for storage-failure tests: a tmpfs mounted for one test.

Mounting needs privileges (root, or CAP_SYS_ADMIN); tests that cannot mount are skipped.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def mounted_tmpfs(where: Path, size: str = "2m") -> Iterator[Path]:
    """Mount a `size` tmpfs at `where` (created) for the block; skip the test if not allowed."""
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip() or mounted.returncode}")
    try:
        yield where
    finally:
        # Lazy, so a descriptor a failed test left open cannot keep the mount alive.
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def remount_read_only(where: Path) -> None:
    """Make the tmpfs at `where` read-only (no file on it may be open for writing)."""
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True, capture_output=True)


def free_bytes(where: Path) -> int:
    """Bytes still free on the file system holding `where`."""
    stats = os.statvfs(where)
    return stats.f_bavail * stats.f_frsize


def fill(where: Path, leave: int) -> Path:
    """Write a filler file so that about `leave` bytes stay free; return it (delete to free).

    A conversation's background copier may write on the same disk meanwhile: when the disk
    fills before the filler is whole, it is full sooner than asked, which is what the caller
    wanted to reach, so the filler keeps what it wrote.
    """
    filler = where / "filler"
    size = max(0, free_bytes(where) - leave)
    with open(filler, "wb", buffering=0) as handle:
        while size > 0:
            try:
                size -= handle.write(b"\0" * min(size, 1 << 20))
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                break
    return filler
