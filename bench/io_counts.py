"""Count durable-write system calls (`os.fsync`, `os.replace`, `os.rename`) in a block of code.

Used by the benchmarks that persist conversations, so their JSON shows how many fsyncs and
renames a step or a goal round costs: that count, times the disk's own fsync latency (which
varies 20x across hours on a shared VM), is most of a persisted step's cost.

Not a benchmark itself: `make bench` runs it and it prints a self-check line.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_COUNTED = ("fsync", "replace", "rename")


@dataclass
class IOCounts:
    """Calls made inside `count_io()`: fsyncs (files and folders) and renames (any kind)."""

    fsyncs: int = 0
    renames: int = 0


@contextlib.contextmanager
def count_io() -> Iterator[IOCounts]:
    """Count `os.fsync`, `os.replace` and `os.rename` calls made in this process meanwhile.

    The wrappers are installed on the `os` module, so every caller that looks them up at call
    time (`os.fsync(fd)`) is counted; they still do the real call.
    """
    counts = IOCounts()
    originals: dict[str, Any] = {name: getattr(os, name) for name in _COUNTED}

    def fsync(fd: Any) -> None:
        counts.fsyncs += 1
        originals["fsync"](fd)

    def replace(src: Any, dst: Any, **kwargs: Any) -> None:
        counts.renames += 1
        originals["replace"](src, dst, **kwargs)

    def rename(src: Any, dst: Any, **kwargs: Any) -> None:
        counts.renames += 1
        originals["rename"](src, dst, **kwargs)

    os.fsync, os.replace, os.rename = fsync, replace, rename  # type: ignore[assignment]
    try:
        yield counts
    finally:
        for name, function in originals.items():
            setattr(os, name, function)


def main() -> None:
    """Self-check: one atomic write (temp file, fsync, replace) counts one fsync, one rename."""
    with tempfile.TemporaryDirectory(prefix="bench-io-counts-") as tmp, count_io() as counts:
        path = Path(tmp) / "a.tmp"
        with open(path, "w") as handle:
            handle.write("x")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(path, Path(tmp) / "a")
    ok = (counts.fsyncs, counts.renames) == (1, 1)
    print(
        json.dumps(
            {
                "bench": "io_counts",
                "fsyncs": counts.fsyncs,
                "renames": counts.renames,
                "targets_met": ok,
            }
        )
    )


if __name__ == "__main__":
    main()
