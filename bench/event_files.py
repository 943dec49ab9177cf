"""The per-run cost of the per-event JSON copy (`events/event-*.json`), with and without.

Runs the same 1000-step scripted run (two fsynced events per step) with the copy on (the
default: copied in the background during the run), off (`OH_EVENT_FILES=0`), and written
all at the end of the run (the earlier design, for comparison), in rotation so all see the
same machine load, and prints one JSON line: the best and median run time of each, the
ratios to "off", the CPU time the process spent during the run (all threads, kernel
included: the copy's whole work, wherever it ran), and a check that every event has its
file when `run()` returns. Target (docs/performance.md): the copy adds
at most 25% to the best run (it was 2.6x when the files were written at the end of the run).

Usage: `uv run python bench/event_files.py [--steps N] [--repeats N]`
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agent_steps import _agent
from openhands.sdk import Conversation, LocalConversation
from openhands.sdk.conversation.event_files import EventFiles

MODES = ("off", "background", "at_end")
_notify = EventFiles.notify


def run_once(steps: int, root: Path, mode: str) -> tuple[float, float, bool]:
    """(seconds of `run()`, CPU seconds of the process during it (every thread, kernel time
    included), whether the copy was complete (or absent) when it returned)."""
    copy = mode != "off"
    os.environ["OH_EVENT_FILES"] = "1" if copy else "0"
    # "at_end": no background copy, so the end of the run writes every file itself.
    EventFiles.notify = _notify if mode == "background" else (lambda self, size: None)  # type: ignore[method-assign]
    conversation = Conversation(
        _agent(steps),
        workspace=str(root / "work"),
        persistence_dir=str(root / "conversations"),
        conversation_id=uuid.uuid4(),
        max_iteration_per_run=steps + 10,
    )
    conversation.send_message("Think it through, one step at a time.")
    started, cpu = time.perf_counter(), time.process_time()
    conversation.run()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    assert isinstance(conversation, LocalConversation)
    folder = Path(conversation.state.persistence_dir or "")
    files = len(list((folder / "events").glob("event-*.json")))
    complete = files == len(conversation.state.events) if copy else files == 0
    conversation.close()
    return seconds, cpu, complete


def main() -> None:
    """Run the benchmark and print the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[float]] = {mode: [] for mode in MODES}
    cpus: dict[str, list[float]] = {mode: [] for mode in MODES}
    complete = True
    with tempfile.TemporaryDirectory(prefix="bench-event-files-") as tmp:
        run_once(20, Path(tmp) / "warmup", "background")
        for index in range(args.repeats):
            order = MODES[index % 3 :] + MODES[: index % 3]  # rotate: same load for each
            for mode in order:
                seconds, cpu, ok = run_once(args.steps, Path(tmp) / f"{mode}-{index}", mode)
                times[mode].append(seconds)
                cpus[mode].append(cpu)
                complete = complete and ok
    best = {mode: min(values) for mode, values in times.items()}
    median = {mode: statistics.median(values) for mode, values in times.items()}
    result: dict[str, object] = {"bench": "event_files", "steps": args.steps}
    for mode in MODES:
        result[f"best_s_{mode}"] = round(best[mode], 3)
        result[f"median_s_{mode}"] = round(median[mode], 3)
        result[f"median_cpu_s_{mode}"] = round(statistics.median(cpus[mode]), 3)
    for mode in ("background", "at_end"):
        result[f"ratio_best_{mode}"] = round(best[mode] / best["off"], 2)
        result[f"ratio_median_{mode}"] = round(median[mode] / median["off"], 2)
    result["files_complete_at_return"] = complete
    result["targets_met"] = complete and best["background"] <= 1.25 * best["off"]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
