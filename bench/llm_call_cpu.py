"""Benchmark: CPU per chat completion, native transport vs litellm, to a local fake server.

The fake OpenAI-compatible server runs in its own process (its CPU is not counted). Each
transport is measured in a fresh process of its own: `--warmup` completions first (imports,
connection set-up, caches), then `--calls` completions whose CPU time (user + system, all
threads: litellm logs from a worker thread) and wall time are divided by the number of
calls. A completion is `LLM.completion` on a system prompt, a user message and one tool, so
it includes the SDK's own work (formatting, options, parsing, cost, metrics); plain and
streamed replies are measured. Prints one JSON line. Target: <= 2 ms of CPU per plain
completion through the native transport.

Usage: `uv run python bench/llm_call_cpu.py [--calls N] [--warmup N] [--python PY]`.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from typing import Any

TARGET_NATIVE_MS = 2.0

SERVER = """
import sys, threading
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
server = FakeOpenAIServer(port=int(sys.argv[1])).start()
reply = FakeReply.tool_call("terminal", {"command": "ls -la"}, content="Listing.",
                            prompt_tokens=1200, completion_tokens=40)
server.set_responder("*", lambda body: reply)
print("ready", flush=True)
threading.Event().wait()
"""

CLIENT = """
import json, os, resource, sys, time
from pydantic import SecretStr
from openhands.sdk.llm import LLM, Message, TextContent
transport, base_url, warmup, calls, stream = sys.argv[1:6]
llm = LLM(model="openai/gpt-4o-mini", base_url=base_url, api_key=SecretStr("k"),
          transport=transport, num_retries=0)
messages = [Message(role="system", content=[TextContent(text="You are a coding agent. " * 40)]),
            Message(role="user", content=[TextContent(text="List the files, please.")])]
tools = [{"type": "function", "function": {"name": "terminal", "description": "Run a command.",
          "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                         "required": ["command"]}}}]
on_token = (lambda chunk: None) if stream == "1" else None
def run(n):
    for _ in range(n):
        llm.completion(messages, tools=tools, stream=stream == "1", on_token=on_token)
run(int(warmup))
usage, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
run(int(calls))
after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall
cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
print(json.dumps({"cpu_ms": 1000 * cpu / int(calls), "wall_ms": 1000 * wall / int(calls),
                  "litellm_loaded": "litellm" in sys.modules,
                  "cost": llm.metrics.accumulated_cost}))
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _measure(python: str, transport: str, base_url: str, args: argparse.Namespace, stream: bool):
    done = subprocess.run(
        [
            python,
            "-c",
            CLIENT,
            transport,
            base_url,
            str(args.warmup),
            str(args.calls),
            str(int(stream)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )
    if done.returncode != 0:
        raise SystemExit(f"{transport} client failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    port = _free_port()
    server = subprocess.Popen(
        [args.python, "-c", SERVER, str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        base_url = f"http://127.0.0.1:{port}/v1"
        results: dict[str, Any] = {}
        for transport in ("native", "litellm"):
            for stream in (False, True):
                key = f"{transport}{'_stream' if stream else ''}"
                results[key] = _measure(args.python, transport, base_url, args, stream)
    finally:
        server.terminate()
        server.wait(timeout=10)
    native = results["native"]["cpu_ms"]
    print(
        json.dumps(
            {
                "bench": "llm_call_cpu",
                "calls": args.calls,
                "warmup": args.warmup,
                "cpu_ms_per_call": {k: round(v["cpu_ms"], 3) for k, v in results.items()},
                "wall_ms_per_call": {k: round(v["wall_ms"], 3) for k, v in results.items()},
                "litellm_loaded": {k: v["litellm_loaded"] for k, v in results.items()},
                "same_cost": len({round(v["cost"], 12) for v in results.values()}) == 1,
                "target_native_ms": TARGET_NATIVE_MS,
                "meets_target": native <= TARGET_NATIVE_MS,
                "loadavg": [round(x, 2) for x in os.getloadavg()],
                "date": time.strftime("%Y-%m-%d %H:%M"),
            }
        )
    )


if __name__ == "__main__":
    main()
