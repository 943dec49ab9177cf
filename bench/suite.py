"""Benchmark: the whole test suite's wall and CPU time, on a quiet machine or a busy one.

Runs the suite the way `make pytest` does (`pytest -q --timeout=300 -n WORKERS --dist
loadgroup`, with this script's Python) and prints one JSON line: the wall time, the suite's
CPU time, pytest's result line and the load average before and after. With `--busy N`, N busy
loops (one Python `while True: pass` each) keep the cores taken for the whole run, as other
work on a shared machine does.

The suite's CPU time is the machine's (every process's, from /proc/stat) minus the busy
loops' own: servers, browsers and sandboxes started by the tests and left to exit on their
own are counted too, which the pytest process's rusage would miss.

Usage: `uv run python bench/suite.py [--busy N] [--workers N] [--runs N] [--log FILE]
[-- PYTEST ARGS]`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 300.0
"""The quiet target for pytest's wall time on the project's 2-core machine."""


def _machine_cpu_s() -> float:
    """Seconds of CPU the whole machine has spent (user, nice, system, irq, softirq)."""
    with open("/proc/stat") as stat:
        fields = stat.readline().split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq = (int(x) for x in fields[:7])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _cpu_of(pid: int) -> float:
    """Reap a child and return its CPU time (user + system, with its reaped children)."""
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_utime + usage.ru_stime


def run_once(
    workers: int, busy: int, pytest_args: list[str], log: Path | None
) -> dict[str, object]:
    """One run of the suite beside `busy` busy loops; its figures (pytest's output appended
    to `log` when given)."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    load_before = _load()
    cpu_before = _machine_cpu_s()
    start = time.monotonic()
    command = [sys.executable, "-m", "pytest", "-q", "--timeout=300", "-n", str(workers)]
    suite = subprocess.Popen(
        [*command, "--dist", "loadgroup", *pytest_args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output, _ = suite.communicate()
    wall = time.monotonic() - start
    if log is not None:
        with open(log, "a") as out:
            out.write(output)
    cpu_after = _machine_cpu_s()
    load_after = _load()
    busy_cpu = 0.0
    for loop in loops:
        loop.kill()
        busy_cpu += _cpu_of(loop.pid)
        loop.returncode = -9  # reaped above; keeps Popen from waiting again
    lines = [line for line in output.splitlines() if line.strip()]
    failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    return {
        "wall_s": round(wall, 1),
        "suite_cpu_s": round(cpu_after - cpu_before - busy_cpu, 1),
        "busy_loops_cpu_s": round(busy_cpu, 1),
        "exit": suite.returncode,
        "result": lines[-1] if lines else "",
        "failed": failed,
        "load_before": load_before,
        "load_after": load_after,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="The test suite's wall and CPU time.")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("PYTEST_WORKERS", 4)))
    parser.add_argument("--busy", type=int, default=0, help="busy loops beside the suite")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--log", type=Path, help="append pytest's whole output to this file")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args()
    runs = [run_once(args.workers, args.busy, args.pytest_args, args.log) for _ in range(args.runs)]
    print(
        json.dumps(
            {
                "benchmark": "suite",
                "workers": args.workers,
                "busy_loops": args.busy,
                "cores": os.cpu_count(),
                "target_quiet_wall_s": TARGET_S,
                "runs": runs,
            }
        )
    )


if __name__ == "__main__":
    main()
