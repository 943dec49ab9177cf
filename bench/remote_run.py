"""Latency of `RemoteConversation.run()` against a live agent server with an instant LLM.

Starts the fake OpenAI server and `python -m openhands.agent_server` on free ports, warms up
(the server imports litellm on its first completion), then N = 30 times: creates a remote
conversation, sends one message and times `run()` alone (POST /run, the agent's one LLM
call, the events over the WebSocket and the one confirming REST read). A fresh conversation
per run keeps the history (and litellm's per-message cost) the same for every sample.

For context it also times the same run in-process (`LocalConversation`, persisted): the
floor the server itself cannot beat; the difference is what the client/server path adds.

Prints one JSON line: median, p90, min and max in ms, plus the local floor and overhead.
Target (docs/performance.md): median <= 60 ms (the reference client's figure; the seed's
polling client paid ~2 s per run).

Usage: `uv run python bench/remote_run.py [--runs N]`.
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
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx
from openhands.sdk import LLM, Agent, LocalConversation
from openhands.sdk.remote import RemoteConversation, RemoteWorkspace
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from pydantic import SecretStr

TARGET_MS = 60.0
WARMUP_RUNS = 3


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_server(root: Path, port: int) -> subprocess.Popen[bytes]:
    env = dict(
        os.environ,
        OH_CONVERSATIONS_PATH=str(root / "conversations"),
        OH_WORKSPACE_PATH=str(root / "workspaces"),
        OH_SESSION_API_KEYS="",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "openhands.agent_server", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("remote_run: the agent server did not start within 60 s")


def _time_remote(workspace: RemoteWorkspace, agent: Agent, runs: int) -> list[float]:
    timings: list[float] = []
    for index in range(WARMUP_RUNS + runs):
        with RemoteConversation(agent, workspace) as conversation:
            conversation.send_message(f"round {index}")
            started = time.perf_counter()
            conversation.run()
            elapsed = (time.perf_counter() - started) * 1000
        if index >= WARMUP_RUNS:
            timings.append(elapsed)
    return timings


def _time_local(root: Path, agent: Agent, runs: int) -> list[float]:
    timings: list[float] = []
    for index in range(WARMUP_RUNS + runs):
        conversation = LocalConversation(
            agent, root / "local-project", persistence_dir=root / "local-conversations"
        )
        conversation.send_message(f"round {index}")
        started = time.perf_counter()
        conversation.run()
        elapsed = (time.perf_counter() - started) * 1000
        conversation.close()
        if index >= WARMUP_RUNS:
            timings.append(elapsed)
    return timings


def measure(runs: int) -> dict[str, object]:
    """Time `runs` remote runs (and as many local ones) and summarize them."""
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as fake:
        root = Path(tmp)
        fake.set_responder("*", lambda _body: FakeReply.text("done"))
        llm = LLM(
            model="openai/bench", base_url=fake.base_url, api_key=SecretStr("k"), num_retries=0
        )
        agent = Agent(llm=llm)
        port = _free_port()
        proc = _start_server(root, port)
        try:
            workspace = RemoteWorkspace(
                host=f"http://127.0.0.1:{port}", working_dir=str(root / "project")
            )
            remote = sorted(_time_remote(workspace, agent, runs))
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        local = sorted(_time_local(root, agent, runs))
    median = statistics.median(remote)
    local_median = statistics.median(local)
    return {
        "bench": "remote_run",
        "runs": runs,
        "median_ms": round(median, 1),
        "p90_ms": round(remote[int(0.9 * (len(remote) - 1))], 1),
        "min_ms": round(remote[0], 1),
        "max_ms": round(remote[-1], 1),
        "local_median_ms": round(local_median, 1),
        "remote_overhead_ms": round(median - local_median, 1),
        "target_median_ms": TARGET_MS,
        "ok": median <= TARGET_MS,
    }


def main() -> None:
    """Parse the options, measure, print one JSON line."""
    parser = argparse.ArgumentParser(description="Latency of RemoteConversation.run().")
    parser.add_argument("--runs", type=int, default=30, help="Timed runs (default 30).")
    args = parser.parse_args()
    print(json.dumps(measure(args.runs)))


if __name__ == "__main__":
    main()
