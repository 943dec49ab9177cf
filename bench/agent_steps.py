"""Agent loop overhead: N scripted `think` steps in one persisted run, then a reopen.

Prints one JSON line: seconds for N = 250 and N = 1000, ms per step for each, and the reopen
time per event (best of three runs each, since the machine is shared). Targets (docs/performance.md): the 1000-step run <= 3 s, the per-step cost at
N = 1000 within 2x the cost at N = 250 (framework overhead flat in history length), and reload
<= 30 us per event (reopening and reading every event; `open_1000_ms` is the reopen alone,
which reads no event). Each step appends two fsynced events (~0.4 ms each here). It also counts
the fsyncs and renames of the 1000-step run (`io_counts.py`): at most one fsync per appended
event and no rename per status change (`fsyncs_per_event`, `renames_per_run`).

Usage: `uv run python bench/agent_steps.py [--profile N] [--event-files]` (--profile prints a
cProfile of one N-step run to stderr instead; --event-files measures with the opt-in
per-event copy of the log, `OH_EVENT_FILES=1`, on).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import tempfile
import time
import uuid
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from io_counts import count_io
from openhands.sdk import Agent, Conversation, LocalConversation, Message, MessageToolCall
from openhands.sdk.testing import TestLLM

SIZES = (250, 1000)
REPEATS = 3  # best of: the machine is shared and fsync times vary


def _script(steps: int) -> list[Message]:
    """`steps` think calls with distinct thoughts (so the stuck detector stays quiet)."""
    replies = [
        Message(
            role="assistant",
            tool_calls=[
                MessageToolCall(
                    id=f"call_{i}",
                    name="think",
                    arguments=json.dumps({"thought": f"step {i}: consider the next file"}),
                )
            ],
        )
        for i in range(steps)
    ]
    replies.append(
        Message(
            role="assistant",
            tool_calls=[MessageToolCall(id="done", name="finish", arguments='{"message": "ok"}')],
        )
    )
    return replies


def _agent(steps: int) -> Agent:
    return Agent(llm=TestLLM.from_messages(_script(steps)), tools=[])


def run_once(steps: int, root: Path) -> dict[str, float]:
    """Run `steps` think steps persisted under `root`, then reopen; return the timings."""
    workspace = root / "work"
    persistence = root / "conversations"
    conversation_id = uuid.uuid4()
    conversation = Conversation(
        _agent(steps),
        workspace=str(workspace),
        persistence_dir=str(persistence),
        conversation_id=conversation_id,
        max_iteration_per_run=steps + 10,
    )
    conversation.send_message("Think it through, one step at a time.")
    events_before = len(conversation.state.events)
    with count_io() as counted:
        started = time.perf_counter()
        conversation.run()
        run_seconds = time.perf_counter() - started
    appended = len(conversation.state.events) - events_before
    status = conversation.state.execution_status.value
    conversation.close()
    if status != "finished":
        raise SystemExit(f"the {steps}-step run ended {status!r}, not 'finished'")

    started = time.perf_counter()
    reopened = Conversation(
        _agent(0),
        workspace=str(workspace),
        persistence_dir=str(persistence),
        conversation_id=conversation_id,
    )
    open_seconds = time.perf_counter() - started
    events = len(reopened.state.events)  # the events are parsed on this first read
    reload_seconds = time.perf_counter() - started
    assert isinstance(reopened, LocalConversation)
    reopened.close()
    return {
        "run_s": run_seconds,
        "reload_s": reload_seconds,
        "open_s": open_seconds,
        "events": events,
        "fsyncs_per_event": counted.fsyncs / appended,
        "renames": counted.renames,
    }


def _best_of(steps: int, root: Path) -> dict[str, float]:
    runs = [run_once(steps, root / f"n{steps}-{i}") for i in range(REPEATS)]
    return {
        "run_s": min(r["run_s"] for r in runs),
        "reload_s": min(r["reload_s"] for r in runs),
        "open_s": min(r["open_s"] for r in runs),
        "events": runs[0]["events"],
        "fsyncs_per_event": runs[0]["fsyncs_per_event"],
        "renames": runs[0]["renames"],
    }


def main() -> None:
    """Run the benchmark (or profile one size) and print the JSON line."""
    parser = argparse.ArgumentParser(description="Agent loop overhead benchmark.")
    parser.add_argument("--profile", type=int, default=0, help="profile one run of N steps")
    parser.add_argument(
        "--event-files", action="store_true", help="with the per-event copy (OH_EVENT_FILES=1)"
    )
    args = parser.parse_args()
    os.environ["OH_EVENT_FILES"] = "1" if args.event_files else "0"

    with tempfile.TemporaryDirectory(prefix="bench-agent-steps-") as tmp:
        run_once(20, Path(tmp) / "warmup")
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            run_once(args.profile, Path(tmp) / "profile")
            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
            return
        results = {n: _best_of(n, Path(tmp)) for n in SIZES}

    small, large = results[SIZES[0]], results[SIZES[1]]
    ms_small = 1000 * small["run_s"] / SIZES[0]
    ms_large = 1000 * large["run_s"] / SIZES[1]
    reload_us = 1e6 * large["reload_s"] / large["events"]
    print(
        json.dumps(
            {
                "bench": "agent_steps",
                "event_files": args.event_files,
                "run_250_s": round(small["run_s"], 3),
                "run_1000_s": round(large["run_s"], 3),
                "ms_per_step_250": round(ms_small, 3),
                "ms_per_step_1000": round(ms_large, 3),
                "step_cost_ratio": round(ms_large / ms_small, 2),
                "events_1000": int(large["events"]),
                "reload_1000_s": round(large["reload_s"], 4),
                "reload_us_per_event": round(reload_us, 1),
                "open_1000_ms": round(1000 * large["open_s"], 2),
                "fsyncs_per_event": round(large["fsyncs_per_event"], 3),
                "renames_per_run": int(large["renames"]),
                "targets_met": large["run_s"] <= 3.0
                and ms_large <= 2 * ms_small
                and reload_us <= 30.0
                and large["fsyncs_per_event"] <= 1.0
                and large["renames"] == 0,
            }
        )
    )


if __name__ == "__main__":
    main()
