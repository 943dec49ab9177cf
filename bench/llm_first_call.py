"""Benchmark: a fresh process's first chat completion (import + call), native vs litellm.

What a script or a CLI run pays before its first answer: a new interpreter imports the SDK,
builds an `LLM` and makes one completion to a local fake OpenAI-compatible server (in its own
process). Measured from the parent: wall time from spawn to exit, and the child's CPU time
(user + system), `--runs` times per transport, alternating, together with a process that
only imports `openhands.sdk.llm` and builds the `LLM` ("import_only": what is left is the
transport's share). Prints one JSON line with every run and the medians. Target: <= 0.6 s
wall through the native transport.

Usage: `uv run python bench/llm_first_call.py [--runs N] [--python PY]`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import time

TARGET_NATIVE_S = 0.6

SERVER = """
import sys, threading
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
server = FakeOpenAIServer(port=int(sys.argv[1])).start()
server.set_responder("*", lambda body: FakeReply.text("hello", prompt_tokens=20, completion_tokens=2))
print("ready", flush=True)
threading.Event().wait()
"""

CLIENT = """
import sys
from pydantic import SecretStr
from openhands.sdk.llm import LLM, text_message
transport = sys.argv[1]
llm = LLM(model="openai/gpt-4o-mini", base_url=sys.argv[2], api_key=SecretStr("k"),
          transport="native" if transport == "import_only" else transport, num_retries=0)
if transport != "import_only":
    assert llm.completion([text_message("user", "hi")]).message.text == "hello"
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run_once(python: str, transport: str, base_url: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh process's first completion."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [python, "-c", CLIENT, transport, base_url],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{transport} run failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    port = _free_port()
    server = subprocess.Popen(
        [args.python, "-c", SERVER, str(port)], stdout=subprocess.PIPE, text=True
    )
    runs: dict[str, list[tuple[float, float]]] = {"native": [], "litellm": [], "import_only": []}
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        base_url = f"http://127.0.0.1:{port}/v1"
        _run_once(args.python, "native", base_url)  # bytecode and page cache warm for both
        _run_once(args.python, "litellm", base_url)
        for _ in range(args.runs):
            for transport in runs:
                runs[transport].append(_run_once(args.python, transport, base_url))
    finally:
        server.terminate()
        server.wait(timeout=10)
    median = {t: round(statistics.median(w for w, _ in r), 3) for t, r in runs.items()}
    print(
        json.dumps(
            {
                "bench": "llm_first_call",
                "runs": args.runs,
                "wall_s_median": median,
                "cpu_s_median": {
                    t: round(statistics.median(c for _, c in r), 3) for t, r in runs.items()
                },
                "wall_s_runs": {t: [round(w, 3) for w, _ in r] for t, r in runs.items()},
                "cpu_s_runs": {t: [round(c, 3) for _, c in r] for t, r in runs.items()},
                "target_native_s": TARGET_NATIVE_S,
                "meets_target": median["native"] <= TARGET_NATIVE_S,
                "loadavg": [round(x, 2) for x in os.getloadavg()],
                "date": time.strftime("%Y-%m-%d %H:%M"),
            }
        )
    )


if __name__ == "__main__":
    main()
