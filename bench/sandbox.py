"""Benchmark: what the bubblewrap sandbox costs per command.

Times, `--repeat` times each, a command run to its end (`run_shell("true")`, what `verify`,
hooks and /api/bash do) without a sandbox, in bubblewrap without network and in bubblewrap
with network (slirp4netns started for it), and a command in the persistent terminal (one
round trip to an already started bash) outside and inside the sandbox, plus the terminal's
start. Prints one JSON line: median and p90 ms of each, and the sandbox's extra cost per
command. Target: under 20 ms extra per command.
Usage: `uv run python bench/sandbox.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openhands.sdk.workspace import SandboxPolicy, configure_sandbox, run_shell, sandbox_status
from openhands.tools.terminal import TerminalSession

TARGET_MS = 20.0


def _times(action: Callable[[], Any], repeat: int) -> list[float]:
    action()  # warm-up: first imports, probes, page cache
    found = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        found.append((time.perf_counter() - start) * 1000)
    return found


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p90_ms": round(ordered[int(len(ordered) * 0.9) - 1], 2),
    }


def _shell(workspace: Path, repeat: int) -> list[float]:
    def once() -> None:
        result = run_shell("true", workspace, timeout=30)
        assert result.exit_code == 0, result.output

    return _times(once, repeat)


def _terminal(workspace: Path, repeat: int) -> tuple[list[float], list[float]]:
    starts: list[float] = []
    sessions = []
    for _ in range(max(3, repeat // 10)):
        session = TerminalSession(str(workspace))
        began = time.perf_counter()
        session.start()
        starts.append((time.perf_counter() - began) * 1000)
        sessions.append(session)
    for session in sessions[1:]:
        session.close()
    session = sessions[0]
    try:
        commands = _times(lambda: session.run("true", timeout=30), repeat)
    finally:
        session.close()
    return starts, commands


def main() -> None:
    """Run each way and print the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    status = sandbox_status("bwrap")
    if not status.active:
        print(json.dumps({"bench": "sandbox", "skipped": status.warning}))
        return
    results: dict[str, Any] = {"bench": "sandbox", "repeat": args.repeat, "target_ms": TARGET_MS}
    with tempfile.TemporaryDirectory(prefix="oh-bench-sandbox-") as folder:
        workspace = Path(folder)
        ways = {
            "off": SandboxPolicy(mode="off"),
            "bwrap_no_network": SandboxPolicy(mode="bwrap", network=False),
            "bwrap_network": SandboxPolicy(mode="bwrap", network=True),
        }
        for name, policy in ways.items():
            configure_sandbox(policy)
            try:
                results[f"run_shell_{name}"] = _summary(_shell(workspace, args.repeat))
                if name != "bwrap_no_network":
                    starts, commands = _terminal(workspace, args.repeat)
                    results[f"terminal_start_{name}"] = _summary(starts)
                    results[f"terminal_command_{name}"] = _summary(commands)
            finally:
                configure_sandbox(None)
    off = results["run_shell_off"]["median_ms"]
    results["extra_per_command_ms"] = {
        "run_shell_no_network": round(results["run_shell_bwrap_no_network"]["median_ms"] - off, 2),
        "run_shell_network": round(results["run_shell_bwrap_network"]["median_ms"] - off, 2),
        "terminal_command": round(
            results["terminal_command_bwrap_network"]["median_ms"]
            - results["terminal_command_off"]["median_ms"],
            2,
        ),
    }
    print(json.dumps(results))


if __name__ == "__main__":
    main()
