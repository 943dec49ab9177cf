"""Checkpoint cost per goal round on a 10,000-file workspace.

Builds a workspace of N files (default 10,000, in 100 folders, ~300 bytes each) and a
shadow checkpoint repository for it, takes the first snapshot (every file is recorded),
then R rounds that each change a few files (edit 3, add 1, delete 1) and snapshot. Also a
snapshot with nothing changed, the diff of one round, the diff of the whole goal, and a
rewind to the first round. Prints one JSON line: medians in milliseconds, and the size of
the shadow repository. Target (docs/performance.md): a round's snapshot under 100 ms when
few files changed.

Usage: `uv run python bench/checkpoints.py [--files N] [--rounds R]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from openhands.sdk.workspace.checkpoints import CheckpointSettings, CheckpointStore


def _build(workspace: Path, files: int) -> None:
    for index in range(files):
        folder = workspace / f"pkg{index % 100:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"module_{index}.py").write_text(f"VALUE = {index}\n" + "# filler\n" * 30)


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the benchmark and return its figures."""
    parser = argparse.ArgumentParser(description="Checkpoint cost per goal round.")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20, help="at most 1000 with 10,000 files")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "workspace"
        workspace.mkdir()
        _build(workspace, args.files)
        store = CheckpointStore(
            Path(tmp) / "conversation" / "checkpoints", workspace, CheckpointSettings()
        )
        started = time.perf_counter()
        first = store.snapshot("goal start", goal_round=0)
        first_s = time.perf_counter() - started

        rounds: list[float] = []
        ids = [first.id]
        for number in range(1, args.rounds + 1):
            # Edits, an addition and a deletion that never touch a file twice in a run.
            for edit in range(3):
                index = 1000 + number * 3 + edit
                path = workspace / f"pkg{index % 100:02d}" / f"module_{index}.py"
                path.write_text(path.read_text() + f"# round {number}\n")
            (workspace / f"pkg{number % 100:02d}" / f"new_{number}.py").write_text("NEW = 1\n")
            gone = 5000 + number
            (workspace / f"pkg{gone % 100:02d}" / f"module_{gone}.py").unlink()
            started = time.perf_counter()
            checkpoint = store.snapshot(f"round {number}", goal_round=number)
            rounds.append(time.perf_counter() - started)
            assert checkpoint.changed == 5, checkpoint.changes
            ids.append(checkpoint.id)

        unchanged: list[float] = []
        for _ in range(5):
            started = time.perf_counter()
            store.snapshot("nothing changed")
            unchanged.append(time.perf_counter() - started)

        started = time.perf_counter()
        store.diff(ids[-1])
        round_diff_s = time.perf_counter() - started
        started = time.perf_counter()
        whole = store.diff(ids[-1], ids[0])
        goal_diff_s = time.perf_counter() - started
        started = time.perf_counter()
        store.rewind(ids[1])
        rewind_s = time.perf_counter() - started

        result: dict[str, object] = {
            "bench": "checkpoints",
            "files": args.files,
            "rounds": args.rounds,
            "first_snapshot_ms": _ms(first_s),
            "round_snapshot_ms_median": _ms(statistics.median(rounds)),
            "round_snapshot_ms_max": _ms(max(rounds)),
            "unchanged_snapshot_ms_median": _ms(statistics.median(unchanged)),
            "round_diff_ms": _ms(round_diff_s),
            "goal_diff_ms": _ms(goal_diff_s),
            "goal_diff_files": len(whole.files),
            "rewind_ms": _ms(rewind_s),
            "shadow_repository_mb": round(_size(store.git_dir) / 1e6, 1),
            "workspace_mb": round(_size(workspace) / 1e6, 1),
        }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
