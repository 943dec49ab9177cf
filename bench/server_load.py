"""Benchmark: 100 concurrent 3-round goals on one agent server, and REST latency meanwhile.

Starts the agent server as a subprocess and the fake OpenAI-compatible server in this process.
Every conversation runs a goal whose judge says "not yet" until the last round and "complete"
on it; the agent answers each round with one reply. A warm-up goal runs first (the server
imports litellm on its first LLM call, which takes seconds once per process). While the goals
run, a separate client process keeps calling REST routes (conversation info, goal status, an
event page, server info) and times each call. Prints one JSON line: whether every goal
completed, how long the batch took, and p50/p99 of the REST calls, overall and per route.
Target: p99 < 100 ms.
Usage: `uv run python bench/server_load.py [--conversations N] [--rounds N] [--reply-delay S]`.
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
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

TARGET_P99_MS = 100.0
CLIENT_THREADS = 4
TIMEOUT_S = 600.0
ROUTES = ("conversation", "goal", "events_page", "server_info")
MARKER = "goal-"
MARKER_LEN = len(MARKER) + 8


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


class Judge:
    """Says "not yet" until a goal (told apart by its objective's marker) reaches its last round."""

    def __init__(self, rounds: int, delay: float) -> None:
        self.rounds = rounds
        self.delay = delay
        self._calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> FakeReply:
        text = json.dumps(body.get("messages", []))
        at = text.find(MARKER)
        marker = text[at : at + MARKER_LEN] if at >= 0 else "?"
        with self._lock:
            self._calls[marker] += 1
            done = self._calls[marker] >= self.rounds
        verdict = {
            "score": 1.0 if done else 0.5,
            "complete": done,
            "missing": [] if done else ["more"],
        }
        return FakeReply.text(json.dumps(verdict)).delayed(self.delay)


# -- the REST client (a separate process, so it does not share a GIL with the fake LLM) -----


def poll(url: str, ids: list[str], stop_file: Path, out_file: Path) -> None:
    """Call REST routes from a few threads until `stop_file` exists; write [route, ms] pairs."""
    results: list[tuple[str, float]] = []

    def worker(offset: int) -> None:
        with httpx.Client(base_url=url, timeout=30) as http:
            step = offset
            while not stop_file.exists():
                cid = ids[step % len(ids)]
                route = ROUTES[step % len(ROUTES)]
                path = {
                    "conversation": f"/api/conversations/{cid}",
                    "goal": f"/api/conversations/{cid}/goal",
                    "events_page": f"/api/conversations/{cid}/events/search?limit=20",
                    "server_info": "/server_info",
                }[route]
                start = time.perf_counter()
                http.get(path).raise_for_status()
                results.append((route, (time.perf_counter() - start) * 1000))
                step += 1
                time.sleep(0.01)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(CLIENT_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out_file.write_text(json.dumps(results))


# -- the batch ------------------------------------------------------------------------------


def _start_server(root: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {
        **os.environ,
        "OH_CONVERSATIONS_PATH": str(root / "conversations"),
        "OH_WORKSPACE_PATH": str(root / "workspaces"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    env.pop("OH_SESSION_API_KEYS", None)
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


def _run_goal_batch(
    http: httpx.Client, ids: list[str], judge_llm: dict[str, Any], rounds: int
) -> tuple[dict[str, str], float]:
    """Start every goal, wait for all to end; (status per conversation, seconds taken)."""
    start = time.perf_counter()
    for index, cid in enumerate(ids):
        body = {
            "objective": f"{MARKER}{index:08d}: write the report",
            "judge_llm": judge_llm,
            "max_iterations": rounds + 2,
        }
        http.post(f"/api/conversations/{cid}/goal", json=body).raise_for_status()
    statuses: dict[str, str] = {}
    deadline = time.monotonic() + TIMEOUT_S
    while len(statuses) < len(ids) and time.monotonic() < deadline:
        time.sleep(0.5)
        page = http.get("/api/conversations/search", params={"limit": 100}).json()
        for info in page["items"]:
            goal = info.get("goal")
            if info["id"] in ids and goal and not goal["active"]:
                statuses[info["id"]] = goal["status"]
    return statuses, time.perf_counter() - start


def _create(http: httpx.Client, agent_llm: dict[str, Any]) -> str:
    body = {"agent": {"kind": "Agent", "llm": agent_llm}}
    return http.post("/api/conversations", json=body).raise_for_status().json()["id"]


def run(conversations: int, rounds: int, delay: float) -> dict[str, Any]:
    """Run the batch and return the results."""
    with FakeOpenAIServer() as fake, tempfile.TemporaryDirectory(prefix="oh-load-") as tmp:
        fake.set_responder("agent", lambda _body: FakeReply.text("worked on it").delayed(delay))
        fake.set_responder("judge", Judge(rounds, delay))
        process, url = _start_server(Path(tmp))
        common = {"base_url": fake.base_url, "api_key": "bench", "num_retries": 0}
        agent_llm = {**common, "model": "openai/agent"}
        judge_llm = {**common, "model": "openai/judge"}
        try:
            with httpx.Client(base_url=url, timeout=60) as http:
                warm_start = time.perf_counter()
                _run_goal_batch(http, [_create(http, agent_llm)], judge_llm, rounds)
                warmup = time.perf_counter() - warm_start
                ids = [_create(http, agent_llm) for _ in range(conversations)]
                stop_file, out_file = Path(tmp) / "stop", Path(tmp) / "latencies.json"
                poller = subprocess.Popen(
                    [
                        sys.executable,
                        __file__,
                        "--poll",
                        url,
                        ",".join(ids),
                        str(stop_file),
                        str(out_file),
                    ]
                )
                statuses, elapsed = _run_goal_batch(http, ids, judge_llm, rounds)
                stop_file.touch()
                poller.wait(timeout=60)
        finally:
            process.terminate()
            process.wait(timeout=30)
        samples: list[tuple[str, float]] = [
            tuple(pair) for pair in json.loads(out_file.read_text())
        ]
    latencies = [ms for _, ms in samples]
    completed = sum(1 for status in statuses.values() if status == "complete")
    p99 = _percentile(latencies, 0.99)
    per_route = {
        route: round(_percentile([ms for r, ms in samples if r == route], 0.99), 1)
        for route in ROUTES
        if any(r == route for r, _ in samples)
    }
    return {
        "bench": "server_load",
        "conversations": conversations,
        "rounds": rounds,
        "reply_delay_s": delay,
        "all_complete": completed == conversations,
        "completed": completed,
        "warmup_s": round(warmup, 2),
        "goals_wall_s": round(elapsed, 2),
        "rest_calls": len(latencies),
        "rest_p50_ms": round(statistics.median(latencies), 1),
        "rest_p99_ms": round(p99, 1),
        "rest_max_ms": round(max(latencies), 1),
        "rest_p99_ms_per_route": per_route,
        "target_p99_ms": TARGET_P99_MS,
        "meets_target": completed == conversations and p99 < TARGET_P99_MS,
    }


def main() -> None:
    """Parse options, run the batch (or the REST poller), print one JSON line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3, help="judged rounds per goal (>= 1)")
    parser.add_argument(
        "--reply-delay", type=float, default=0.05, help="seconds each fake LLM reply takes"
    )
    parser.add_argument("--poll", nargs=4, metavar=("URL", "IDS", "STOP", "OUT"), help="internal")
    args = parser.parse_args()
    if args.poll:
        url, ids, stop, out = args.poll
        poll(url, ids.split(","), Path(stop), Path(out))
        return
    if args.conversations < 1 or args.rounds < 1:
        parser.error("--conversations and --rounds must be >= 1")
    print(json.dumps(run(args.conversations, args.rounds, args.reply_delay)))


if __name__ == "__main__":
    main()
