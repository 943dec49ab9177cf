"""Benchmark: how fast controls answer while every run thread is busy.

Starts the agent server with `OH_MAX_RUN_THREADS=4`; four conversations run agents whose LLM
calls (the fake OpenAI-compatible server, in this process) take a minute, two of them as
goals, and a fifth run waits in the queue. Then it times, `--repeat` times each: pause,
a message, create, delete (of idle conversations made before the pool filled), goal stop,
and /health and a search as a reference. Prints one JSON line: median and max ms per control.
Target: every control under 100 ms (median).
Usage: `uv run python bench/server_controls.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

TARGET_MS = 100.0
RUN_THREADS = 4
SLOW_CALL_S = 120.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_server(root: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {
        **os.environ,
        "OH_CONVERSATIONS_PATH": str(root / "conversations"),
        "OH_WORKSPACE_PATH": str(root / "workspaces"),
        "OH_MAX_RUN_THREADS": str(RUN_THREADS),
        "OH_SHUTDOWN_RUN_WAIT_SECONDS": "0",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    env.pop("OH_SESSION_API_KEYS", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "openhands.agent_server", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("the agent server did not start")


def _timed(call: Callable[[], httpx.Response]) -> float:
    start = time.perf_counter()
    response = call()
    elapsed = (time.perf_counter() - start) * 1000
    response.raise_for_status()
    return elapsed


def _wait(check: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


def run(repeat: int) -> dict[str, Any]:
    """Fill the run pool, then time each control `repeat` times."""
    with FakeOpenAIServer() as fake, tempfile.TemporaryDirectory(prefix="oh-controls-") as tmp:
        fake.set_responder("slow", lambda _body: FakeReply.text("late").delayed(SLOW_CALL_S))
        llm = {"model": "openai/slow", "base_url": fake.base_url, "api_key": "x", "num_retries": 0}
        agent = {"kind": "Agent", "llm": llm}
        process, url = _start_server(Path(tmp))
        try:
            with httpx.Client(base_url=url, timeout=60) as http:

                def create() -> str:
                    return http.post("/api/conversations", json={"agent": agent}).json()["id"]

                runs = [create() for _ in range(3)]
                goals = [create() for _ in range(2)]
                idle = [create() for _ in range(repeat)]
                go = {"content": [{"type": "text", "text": "go"}], "run": True}
                for cid in runs[:2]:
                    http.post(f"/api/conversations/{cid}/events", json=go).raise_for_status()
                for cid in goals:
                    goal = {"objective": "be slow", "judge_llm": llm}
                    http.post(f"/api/conversations/{cid}/goal", json=goal).raise_for_status()
                _wait(lambda: len(fake.requests_for("slow")) == RUN_THREADS, "4 busy runs")
                http.post(f"/api/conversations/{runs[2]}/events", json=go).raise_for_status()
                busy, queued = runs[0], runs[2]
                say = {"content": [{"type": "text", "text": "also this"}]}
                calls: dict[str, list[Callable[[], httpx.Response]]] = {
                    "health": [lambda: http.get("/health")] * repeat,
                    "search": [lambda: http.get("/api/conversations/search?limit=20")] * repeat,
                    "pause": [lambda: http.post(f"/api/conversations/{busy}/pause")] * repeat,
                    "message": [lambda: http.post(f"/api/conversations/{queued}/events", json=say)]
                    * repeat,
                    "create": [lambda: http.post("/api/conversations", json={"agent": agent})]
                    * repeat,
                    "delete": [
                        (lambda cid=cid: http.delete(f"/api/conversations/{cid}")) for cid in idle
                    ],
                    "goal_stop": [
                        (lambda cid=cid: http.post(f"/api/conversations/{cid}/goal/stop"))
                        for cid in goals
                    ],
                }
                timings = {name: [_timed(call) for call in batch] for name, batch in calls.items()}
                still_busy = len(fake.requests_for("slow")) == RUN_THREADS
        finally:
            process.terminate()
            process.wait(timeout=30)
    controls = {
        name: {"median_ms": round(statistics.median(ms), 1), "max_ms": round(max(ms), 1)}
        for name, ms in timings.items()
    }
    slowest = max(v["median_ms"] for k, v in controls.items() if k not in ("health", "search"))
    return {
        "bench": "server_controls",
        "run_threads": RUN_THREADS,
        "repeat": repeat,
        "pool_full_throughout": still_busy,
        "controls": controls,
        "slowest_control_median_ms": slowest,
        "target_ms": TARGET_MS,
        "meets_target": still_busy and slowest < TARGET_MS,
    }


def main() -> None:
    """Parse options, run, print one JSON line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="timed calls per control")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    print(json.dumps(run(args.repeat)))


if __name__ == "__main__":
    main()
