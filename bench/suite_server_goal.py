"""Benchmark: the CPU a test-suite agent server spends on one small goal.

The suite forks its agent servers from a per-worker zygote (tests/server_zygote.py). This
starts servers the way the suite's harness does (`harness.ServerProcess`), and in each one
creates a conversation for a fake OpenAI-compatible LLM, runs a two-round goal on it (the
judge says "not yet", then "complete") and reads its events: the server's CPU time from its
first /health to that point, per server. `OH_TEST_NO_FORK=1` starts them afresh instead.
Prints one JSON line (`server_cpu_s`: each server's, `median_s`).
Usage: `uv run python bench/suite_server_goal.py [--runs N]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import psutil

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path[:0] = [str(TESTS), str(TESTS / "agent_server")]  # the harness imports its siblings

# tests/ is on the path from the line above, not in pyright's view from bench/.
from agent_server.harness import (  # noqa: E402  # pyright: ignore[reportMissingImports]
    ServerProcess,
    llm_spec,
    verdict,
    wait_goal_end,
)
from openhands.sdk.testing import FakeOpenAIServer, FakeReply  # noqa: E402


def one_goal(fake: FakeOpenAIServer, root: Path, tag: str) -> float:
    """A server's CPU seconds for one conversation and its two-round goal."""
    root.mkdir()
    server = ServerProcess(root / "conversations").start()
    try:
        process = psutil.Process(server.process.pid)
        before = sum(process.cpu_times()[:2])
        agent, judge = f"agent-{tag}", f"judge-{tag}"
        fake.script(agent, [FakeReply.text("first try"), FakeReply.text("fixed")])
        fake.script(judge, [verdict(False, "tests"), verdict(True)])
        with server.client() as client:
            body = {"agent": {"kind": "Agent", "llm": llm_spec(fake, agent)}}
            conversation = client.post("/api/conversations", json=body).json()["id"]
            goal = {"objective": "make it so", "judge_llm": llm_spec(fake, judge)}
            client.post(f"/api/conversations/{conversation}/goal", json=goal)
            wait_goal_end(lambda: client.get(f"/api/conversations/{conversation}/goal").json())
            client.get(f"/api/conversations/{conversation}/events/search")
        return sum(process.cpu_times()[:2]) - before
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description="The CPU a test-suite agent server spends on one small goal."
    )
    parser.add_argument("--runs", type=int, default=6, help="servers to start (default 6)")
    args = parser.parse_args()
    with FakeOpenAIServer() as fake, tempfile.TemporaryDirectory() as folder:
        spent = [
            round(one_goal(fake, Path(folder) / str(run), f"{os.getpid()}-{run}"), 3)
            for run in range(args.runs)
        ]
    print(
        json.dumps(
            {
                "benchmark": "suite_server_goal",
                "forked": not os.environ.get("OH_TEST_NO_FORK"),
                "server_cpu_s": spent,
                "median_s": statistics.median(spent),
            }
        )
    )


if __name__ == "__main__":
    main()
