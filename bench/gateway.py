"""Benchmark: what the OpenAI-compatible gateway adds to an agent turn, with an instant LLM.

Starts the agent server as a subprocess and the fake OpenAI-compatible server in this process
(its agent model answers at once with one text reply). After a warm-up request (the server
imports litellm on its first LLM call), it times N sequential `POST /v1/chat/completions`:
each starting a new conversation, each continuing one conversation (the
X-OpenHands-ServerConversation-ID header), and streamed ones (time to the first byte and to
`[DONE]`). Prints one JSON line with the medians and p90s in milliseconds.
Usage: `uv run python bench/gateway.py [--requests N]`.
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

HEADER = "X-OpenHands-ServerConversation-ID"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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
        [sys.executable, "-m", "openhands.agent_server", "--port", str(port)],
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


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return {"median_ms": round(statistics.median(ordered), 1), "p90_ms": round(p90, 1)}


def _timed(calls: int, call: Callable[[], Any]) -> list[float]:
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return times


def run(requests: int) -> dict[str, Any]:
    """Time the gateway's requests; the result as a dict."""
    with FakeOpenAIServer() as fake, tempfile.TemporaryDirectory(prefix="oh-gateway-") as tmp:
        fake.set_responder("agent", lambda _body: FakeReply.text("the answer"))
        process, url = _start_server(Path(tmp))
        try:
            with httpx.Client(base_url=url, timeout=120) as http:
                llm = {"model": "openai/agent", "base_url": fake.base_url, "api_key": "b"}
                http.post("/api/profiles/bench", json={"llm": llm}).raise_for_status()
                ask = {"model": "openhands_bench", "messages": [{"role": "user", "content": "q"}]}

                def new() -> httpx.Response:
                    return http.post("/v1/chat/completions", json=ask).raise_for_status()

                warm_start = time.perf_counter()
                conversation = new().headers[HEADER]
                warmup = (time.perf_counter() - warm_start) * 1000

                def continued() -> None:
                    headers = {HEADER: conversation}
                    http.post("/v1/chat/completions", json=ask, headers=headers).raise_for_status()

                first_bytes: list[float] = []

                def streamed() -> None:
                    start = time.perf_counter()
                    body = {**ask, "stream": True}
                    with http.stream("POST", "/v1/chat/completions", json=body) as answer:
                        chunks = answer.iter_bytes()
                        next(chunks)
                        first_bytes.append((time.perf_counter() - start) * 1000)
                        for _ in chunks:
                            pass

                new_times = _timed(requests, new)
                continued_times = _timed(requests, continued)
                streamed_times = _timed(requests, streamed)
        finally:
            process.terminate()
            process.wait(timeout=30)
    return {
        "bench": "gateway",
        "requests": requests,
        "warmup_ms": round(warmup, 1),
        "new_conversation": _stats(new_times),
        "continued": _stats(continued_times),
        "streamed_total": _stats(streamed_times),
        "streamed_first_byte": _stats(first_bytes),
    }


def main() -> None:
    """Parse the options, run, print one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    print(json.dumps(run(args.requests)))


if __name__ == "__main__":
    main()
