"""Benchmark: agent server cold start to the first /health 200 at 0, 1,000 and 5,000 stored
conversations, and its idle memory.

Conversations are generated on disk first: a few templates written by the SDK (realistic
small logs of 50 to 200 events: a message, `think` calls and their observations, status
updates; fsync is skipped while generating), copied under fresh ids, plus one conversation
of 10,000 events. Every server start runs under `ulimit -n 1024` (like a default shell) and
is timed from spawn to the first 200 on /health. The first start of a store has no index yet
(`first_start_s`: every conversation's summary is read, and the index written); the `--runs`
starts after it read the index the previous one left (`median_s`, `best_s`: the usual start).
At 5,000 the first search page and a GET of one conversation are timed too. Idle RSS (VmRSS
one second after start-up) is measured with `OH_PRELOAD_LITELLM=false` and with the default
preload (once its import is done), and at 5,000 conversations.
Prints one JSON line. Targets: start <= 1 s with no conversation, <= 1.5 s with 1,000 and
<= 0.8 s with 5,000 (an index read, not a scan); idle RSS <= 80 MB without the preload,
<= 120 MB with 5,000 conversations.
Usage: `uv run python bench/server_start.py [--runs N] [--sizes 0,1000,5000]`.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TARGET_START_S = {0: 1.0, 1000: 1.5, 5000: 0.8}
"""Median seconds to the first /health (with the index), by stored conversations."""
TARGET_RSS_MB = 80.0
TARGET_RSS_5000_MB = 120.0
START_TIMEOUT_S = 120.0
FD_LIMIT = 1024
TEMPLATE_STEPS = (25, 45, 70, 100)
"""`think` calls per template: 2 events each, so logs of about 50 to 200 events."""
BIG_STEPS = 5_000
"""The one long conversation: about 10,000 events."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(port: int, path: str) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _healthy(port: int) -> bool:
    try:
        return _get(port, "/health")[0] == 200
    except OSError:
        return False


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def _low_fd_limit() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(FD_LIMIT, hard), hard))


# -- stored conversations ---------------------------------------------------------------------


@contextlib.contextmanager
def _no_fsync() -> Iterator[None]:
    """Generated data need not be durable: skip fsync while writing it (this process only)."""
    real = os.fsync
    os.fsync = lambda fd: None  # type: ignore[assignment]
    try:
        yield
    finally:
        os.fsync = real


def _write_conversation(folder: Path, work: Path, steps: int, title: str) -> uuid.UUID:
    """One finished conversation written by the SDK: a message, `steps` think calls, an end."""
    from openhands.sdk import Agent, LocalConversation, Message, MessageToolCall, TextContent
    from openhands.sdk.testing import TestLLM

    calls = [
        Message(
            role="assistant",
            content=[TextContent(text=f"step {i}: looking at the next file")],
            tool_calls=[
                MessageToolCall(
                    id=f"call-{i}",
                    name="think",
                    arguments=json.dumps({"thought": f"file {i} needs a test " + "x" * 120}),
                )
            ],
        )
        for i in range(steps)
    ]
    done = Message(role="assistant", content=[TextContent(text="done: every test passes")])
    conversation = LocalConversation(
        Agent(llm=TestLLM.from_messages([*calls, done])),
        work,
        persistence_dir=folder,
        max_iteration_per_run=steps + 10,
    )
    conversation.send_message(title)
    conversation.run()
    conversation.close()
    return conversation.id


def _clone(template: Path, folder: Path, index: int) -> None:
    """A copy of a stored conversation under a fresh id (created a little later each time)."""
    cid = uuid.uuid4()
    target = folder / cid.hex
    target.mkdir()
    shutil.copyfile(template / "events.jsonl", target / "events.jsonl")
    state = json.loads((template / "base_state.json").read_text())
    state["id"] = str(cid)
    state["title"] = f"task {index}"
    state["created_at"] = f"2026-01-01T00:00:00.{index:06d}Z"
    (target / "base_state.json").write_text(json.dumps(state))


def make_store(root: Path, count: int) -> Path:
    """A conversations folder holding `count` conversations (one of them ~10,000 events)."""
    folder = root / f"conversations-{count}"
    folder.mkdir()
    if count == 0:
        return folder
    templates = root / "templates"
    work = root / "work"
    with _no_fsync():
        if not templates.exists():
            templates.mkdir()
            for steps in TEMPLATE_STEPS:
                _write_conversation(templates, work, steps, f"{steps} steps")
        _write_conversation(folder, work, BIG_STEPS, "the long one")
    sources = sorted(p for p in templates.iterdir() if p.is_dir())
    rng = random.Random(count)
    for index in range(count - 1):
        _clone(rng.choice(sources), folder, index)
    return folder


# -- starts -----------------------------------------------------------------------------------


def _start(
    folder: Path, root: Path, *, preload: bool
) -> tuple[subprocess.Popen[bytes], int, float]:
    port = _free_port()
    env = {
        **os.environ,
        "OH_CONVERSATIONS_PATH": str(folder),
        "OH_WORKSPACE_PATH": str(root / "workspaces"),
        "OH_PRELOAD_LITELLM": "true" if preload else "false",
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
        preexec_fn=_low_fd_limit,
    )
    while not _healthy(port):
        if process.poll() is not None:
            raise RuntimeError("the server exited during start-up")
        if time.perf_counter() - start > START_TIMEOUT_S:
            process.kill()
            raise RuntimeError(f"no /health 200 within {START_TIMEOUT_S}s")
        time.sleep(0.005)
    return process, port, time.perf_counter() - start


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _timed_get(port: int, path: str) -> tuple[float, Any]:
    start = time.perf_counter()
    status, body = _get(port, path)
    elapsed = (time.perf_counter() - start) * 1000
    if status != 200:
        raise RuntimeError(f"GET {path} answered {status}")
    return elapsed, json.loads(body)


def measure(folder: Path, root: Path, runs: int, count: int) -> dict[str, Any]:
    """The first start (no index yet), then `runs` starts (each reading the index the one
    before left); with conversations, a first search and a GET after the first indexed one."""
    extra: dict[str, Any] = {}
    process, _, first = _start(folder, root, preload=False)
    _stop(process)  # a clean stop: the index is written (the first start wrote it too)
    starts: list[float] = []
    for run in range(runs):
        process, port, elapsed = _start(folder, root, preload=False)
        try:
            starts.append(elapsed)
            if run == 0:
                info = _timed_get(port, "/server_info")[1]
                if info["conversations"] != count:
                    raise RuntimeError(f"{info['conversations']} conversations, not {count}")
                extra["open_after_start"] = info["open_conversations"]
                if count:
                    ms, page = _timed_get(port, "/api/conversations/search?limit=100")
                    extra["first_search_ms"] = round(ms, 1)
                    oldest = page["items"][-1]["id"]
                    extra["get_one_ms"] = round(
                        _timed_get(port, f"/api/conversations/{oldest}")[0], 1
                    )
                    time.sleep(1.0)
                    extra["idle_rss_mb"] = round(_rss_mb(process.pid), 1)
        finally:
            _stop(process)
    return {
        "median_s": round(statistics.median(starts), 3),
        "best_s": round(min(starts), 3),
        "runs_s": [round(seconds, 3) for seconds in starts],
        "first_start_s": round(first, 3),
        **extra,
    }


def idle_rss(folder: Path, root: Path, *, preload: bool) -> float:
    """VmRSS once start-up (and the litellm preload, if on) is over: stable for 2 s."""
    process, _, _ = _start(folder, root, preload=preload)
    try:
        time.sleep(1.0)
        samples = [_rss_mb(process.pid)]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.5)
            samples.append(_rss_mb(process.pid))
            if len(samples) > 4 and max(samples[-5:]) - min(samples[-5:]) < 1.0:
                break
        return round(samples[-1], 1)
    finally:
        _stop(process)


def main() -> None:
    """Generate the stores, measure the starts and print the result as one JSON line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="measured starts per size")
    parser.add_argument("--sizes", default="0,1000,5000", help="conversation counts")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    if args.runs < 1 or any(size < 0 for size in sizes):
        parser.error("--runs must be >= 1 and sizes >= 0")
    with tempfile.TemporaryDirectory(prefix="oh-server-start-") as tmp:
        root = Path(tmp)
        generate_start = time.perf_counter()
        stores = {size: make_store(root, size) for size in sizes}
        generated_s = time.perf_counter() - generate_start
        results = {str(size): measure(stores[size], root, args.runs, size) for size in sizes}
        empty = stores.get(0) or make_store(root, 0)
        rss_off = idle_rss(empty, root, preload=False)
        rss_on = idle_rss(empty, root, preload=True)
    by_size = {size: results[str(size)]["median_s"] for size in sizes}
    meets = rss_off <= TARGET_RSS_MB and all(
        seconds <= TARGET_START_S[size]
        for size, seconds in by_size.items()
        if size in TARGET_START_S
    )
    rss_5000 = results.get("5000", {}).get("idle_rss_mb")
    meets = meets and (rss_5000 is None or rss_5000 <= TARGET_RSS_5000_MB)
    print(
        json.dumps(
            {
                "bench": "server_start",
                "runs": args.runs,
                "fd_limit": FD_LIMIT,
                "start_to_health": results,
                "idle_rss_mb_preload_off": rss_off,
                "idle_rss_mb_preload_on": rss_on,
                "generated_s": round(generated_s, 1),
                "target_start_s": {str(size): s for size, s in TARGET_START_S.items()},
                "target_rss_mb": TARGET_RSS_MB,
                "target_rss_5000_mb": TARGET_RSS_5000_MB,
                "meets_targets": meets,
            }
        )
    )


if __name__ == "__main__":
    main()
