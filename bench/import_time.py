"""Benchmark: wall time and peak memory of `python -c "import openhands.sdk"`.

Runs the import in fresh interpreters (this script's `sys.executable`) and prints one JSON line:
the median wall time over the runs and every run's, the median CPU time (user + system: on a
shared machine it varies less than the wall time), the peak RSS of the largest child, and the
target.
Usage: `uv run python bench/import_time.py [--runs N] [--module NAME]`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

TARGET_S = 0.25


def _time_import(module: str, env: dict[str, str], extra_args: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one fresh interpreter importing `module`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, *extra_args, "-c", f"import {module}"],
        env=env,
        check=True,
        timeout=120,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def main() -> None:
    """Measure the import and print the result as one JSON line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="measured runs (default 10)")
    parser.add_argument("--module", default="openhands.sdk", help="module to import")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    env = dict(os.environ)
    # Users' installs carry compiled bytecode; let the warm-up write it so the runs measure the
    # import itself rather than compiling every source file (PYTHONDONTWRITEBYTECODE may be set).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="import-bench-pyc-") as pycache:
        cached = ["-X", f"pycache_prefix={pycache}"]
        _time_import(args.module, env, cached)
        measured = [_time_import(args.module, env, cached) for _ in range(args.runs)]
    warm = [wall for wall, _ in measured]
    cpu = [seconds for _, seconds in measured]
    with tempfile.TemporaryDirectory(prefix="import-bench-nopyc-") as empty:
        # An empty, read-only-by-convention prefix: every module is compiled from source.
        cold_env = {**env, "PYTHONDONTWRITEBYTECODE": "1"}
        cold = [
            _time_import(args.module, cold_env, ["-X", f"pycache_prefix={empty}"])[0]
            for _ in range(max(3, args.runs // 3))
        ]

    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    print(
        json.dumps(
            {
                "bench": "import_time",
                "module": args.module,
                "median_s": round(statistics.median(warm), 4),
                "min_s": round(min(warm), 4),
                "runs_s": [round(seconds, 3) for seconds in warm],
                "cpu_median_s": round(statistics.median(cpu), 4),
                "median_s_no_bytecode_cache": round(statistics.median(cold), 4),
                "peak_rss_mb": round(peak_kb / 1024, 1),
                "runs": args.runs,
                "target_s": TARGET_S,
            }
        )
    )


if __name__ == "__main__":
    main()
