"""Benchmark: agent server cold start to the first /health 200, and its idle RSS.

Starts `python -m openhands.agent_server` as a subprocess (empty conversations folder) several
times and prints one JSON line: median and best seconds from spawn to the first 200 on /health,
and the idle resident memory (VmRSS from /proc/<pid>/status) one second after start-up.
Targets: start <= 1 s, idle RSS <= 80 MB (litellm must not be imported at start-up).
Usage: `uv run python bench/server_start.py [--runs N]`.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_START_S = 1.0
TARGET_RSS_MB = 80.0
START_TIMEOUT_S = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        connection.request("GET", "/health")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def _one_start(root: Path) -> tuple[float, float]:
    port = _free_port()
    env = {
        **os.environ,
        "OH_CONVERSATIONS_PATH": str(root / f"conversations-{port}"),
        "OH_WORKSPACE_PATH": str(root / "workspaces"),
    }
    env.pop("OH_SESSION_API_KEYS", None)
    start = time.perf_counter()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "openhands.agent_server",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while not _healthy(port):
            if process.poll() is not None:
                raise RuntimeError("the server exited during start-up")
            if time.perf_counter() - start > START_TIMEOUT_S:
                raise RuntimeError(f"no /health 200 within {START_TIMEOUT_S}s")
            time.sleep(0.005)
        elapsed = time.perf_counter() - start
        time.sleep(1.0)  # idle: start-up is over, nothing is running
        return elapsed, _rss_mb(process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> None:
    """Measure the starts and print the result as one JSON line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="measured starts (default 5)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be >= 1")
    with tempfile.TemporaryDirectory(prefix="oh-server-start-") as tmp:
        results = [_one_start(Path(tmp)) for _ in range(args.runs)]
    starts = [start for start, _ in results]
    rss = [mb for _, mb in results]
    median_start = statistics.median(starts)
    median_rss = statistics.median(rss)
    print(
        json.dumps(
            {
                "bench": "server_start",
                "runs": args.runs,
                "start_to_health_s_median": round(median_start, 3),
                "start_to_health_s_best": round(min(starts), 3),
                "idle_rss_mb_median": round(median_rss, 1),
                "idle_rss_mb_max": round(max(rss), 1),
                "target_start_s": TARGET_START_S,
                "target_rss_mb": TARGET_RSS_MB,
                "meets_targets": median_start <= TARGET_START_S and median_rss <= TARGET_RSS_MB,
            }
        )
    )


if __name__ == "__main__":
    main()
