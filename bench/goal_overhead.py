"""Goal loop overhead: N judged rounds on a persisted conversation with instant scripted LLMs.

Each round the scripted agent answers with a ~2 KB message (so the history grows) and the
scripted judge says "not complete" until the last round; `drive_goal` (the SDK's interpreter)
performs the controller's steps. Prints one JSON line: for N = 50 and N = 200, the goal
machinery per round (from the end of an agent run to the next run step: the controller's
steps, the transcript, the judge call, verdict parsing, the decision; the recording of the
goal chips left out, as before the step machine; median over the rounds), the goal chip events per round (each an fsynced append),
the whole round (also the agent run and its own fsynced events), and the fsyncs and renames
per round (`io_counts.py`; target: one fsync per event and no rename, but for the one save of
the conversation's title when the objective arrives: 2 fsyncs, 1 rename). Targets
(docs/performance.md): goal machinery <= 2 ms per round, and the N = 200 figure no more than
1.5x the N = 50 figure (flat in history length: no re-rendering of the history).

Usage: `uv run python bench/goal_overhead.py [--profile N]`.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from io_counts import count_io
from openhands.sdk import Agent, Event, LocalConversation, Message, TextContent
from openhands.sdk.conversation.goal import (
    DriverStep,
    Finish,
    GoalController,
    RecordStatus,
    RunAgent,
    RunEnded,
    StatusRecorded,
    StepResult,
    drive_goal,
)
from openhands.sdk.testing import TestLLM

SIZES = (50, 200)
FILLER = "The agent reports progress on the module and its tests. " * 36  # ~2 KB


class TimedConversation(LocalConversation):
    """A LocalConversation that records the time of each outside event (the goal chips)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.chip_seconds = 0.0

    def append_event(self, event: Event) -> None:
        started = time.perf_counter()
        try:
            super().append_event(event)
        finally:
            self.chip_seconds += time.perf_counter() - started


class TimedController(GoalController):
    """A GoalController that times each round's machinery: from the agent run's end to the
    next run step (or the end), less the time its driver spent recording statuses (each an
    fsynced goal chip event, counted apart as `chip_ms_per_round`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.durations: list[float] = []
        self._since: float | None = None
        self._recording = 0.0
        self._record_started: float | None = None

    def advance(self, result: StepResult) -> None:
        now = time.perf_counter()
        if isinstance(result, StatusRecorded) and self._record_started is not None:
            self._recording += now - self._record_started
            self._record_started = None
        super().advance(result)
        if isinstance(result, RunEnded):
            self._since, self._recording = now, 0.0

    def next(self) -> DriverStep:
        step = super().next()
        now = time.perf_counter()
        if self._since is None:
            return step
        if isinstance(step, RecordStatus):
            self._record_started = now
        elif isinstance(step, RunAgent | Finish):
            self.durations.append(now - self._since - self._recording)
            self._since = None
        return step


def _text(text: str) -> Message:
    return Message(role="assistant", content=[TextContent(text=text)])


def _verdict(complete: bool) -> Message:
    missing = [] if complete else ["tests for clamp()"]
    return _text(
        json.dumps({"score": 1.0 if complete else 0.5, "complete": complete, "missing": missing})
    )


def run_once(rounds: int, root: Path) -> dict[str, float]:
    """Drive a goal of `rounds` rounds on a conversation persisted under `root`."""
    agent_llm = TestLLM.from_messages(
        [_text(f"round {i}: {FILLER}") for i in range(rounds)], usage_id="agent"
    )
    judge_llm = TestLLM.from_messages(
        [_verdict(i == rounds - 1) for i in range(rounds)], usage_id="judge"
    )
    conversation = TimedConversation(
        Agent(llm=agent_llm, tools=[]),
        workspace=str(root / "work"),
        persistence_dir=str(root / "conversations"),
    )
    controller = TimedController("Build mathx with tests", judge_llm, max_iterations=rounds)
    events_before = len(conversation.state.events)
    with count_io() as counted:
        started = time.perf_counter()
        outcome = drive_goal(conversation, controller)
        total = time.perf_counter() - started
    events = len(conversation.state.events)
    conversation.close()
    if outcome.status != "complete" or outcome.iterations != rounds:
        raise SystemExit(
            f"the {rounds}-round goal ended {outcome.status} after {outcome.iterations} rounds"
        )
    return {
        "total_s": total,
        "judge_median_s": statistics.median(controller.durations),
        "judge_total_s": sum(controller.durations),
        "chip_s": conversation.chip_seconds,
        "events": events,
        "fsyncs_per_event": counted.fsyncs / (events - events_before),
        "fsyncs_over_events": counted.fsyncs - (events - events_before),
        "fsyncs": counted.fsyncs,
        "renames": counted.renames,
    }


def main() -> None:
    """Run the benchmark (or profile one size) and print the JSON line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--profile", type=int, default=0, help="profile one goal of N rounds")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-goal-") as tmp:
        run_once(10, Path(tmp) / "warmup")
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            run_once(args.profile, Path(tmp) / "profile")
            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
            return
        results = {n: run_once(n, Path(tmp) / f"n{n}") for n in SIZES}

    small, large = results[SIZES[0]], results[SIZES[1]]
    goal_small = 1000 * small["judge_median_s"]
    goal_large = 1000 * large["judge_median_s"]
    print(
        json.dumps(
            {
                "bench": "goal_overhead",
                "goal_ms_per_round_50": round(goal_small, 3),
                "goal_ms_per_round_200": round(goal_large, 3),
                "goal_cost_ratio": round(goal_large / goal_small, 2),
                "goal_mean_ms_200": round(1000 * large["judge_total_s"] / SIZES[1], 3),
                "chip_ms_per_round_200": round(1000 * large["chip_s"] / SIZES[1], 3),
                "round_ms_50": round(1000 * small["total_s"] / SIZES[0], 3),
                "round_ms_200": round(1000 * large["total_s"] / SIZES[1], 3),
                "events_200": int(large["events"]),
                "fsyncs_per_event_200": round(large["fsyncs_per_event"], 3),
                "fsyncs_per_round_200": round(large["fsyncs"] / SIZES[1], 2),
                "renames_per_round_200": round(large["renames"] / SIZES[1], 3),
                "targets_met": goal_large <= 2.0
                and goal_large <= 1.5 * goal_small
                and large["fsyncs_over_events"] <= 2  # the title's one save: file + folder
                and large["renames"] <= 1,
            }
        )
    )


if __name__ == "__main__":
    main()
