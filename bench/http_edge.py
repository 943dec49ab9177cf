"""Benchmark: how long hostile bodies hold the server, and what others wait meanwhile.

Starts the agent server and posts, one at a time: a 7 MB body of 500,000 unknown keys (under
the body cap, over OH_MAX_JSON_ITEMS), a body of 19,000 unknown keys (under the item cap: it is
validated) and a message of 9,000 content parts of an unknown type (36,000 problems). While each
is handled, another client calls /health every 10 ms. Prints one JSON line: per body its status,
answer size and time, and the slowest /health answer meanwhile.
Usage: `uv run python bench/http_edge.py`.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import httpx

AGENT = {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "x"}}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _measure(url: str, path: str, body: bytes) -> dict[str, Any]:
    worst = 0.0
    stop = threading.Event()

    def poll() -> None:
        nonlocal worst
        with httpx.Client(timeout=120) as http:
            while not stop.is_set():
                began = time.perf_counter()
                http.get(f"{url}/health")
                worst = max(worst, time.perf_counter() - began)
                time.sleep(0.01)

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(0.1)
    began = time.perf_counter()
    answer = httpx.post(
        url + path, content=body, headers={"content-type": "application/json"}, timeout=300
    )
    took = time.perf_counter() - began
    time.sleep(0.2)
    stop.set()
    poller.join()
    return {
        "body_bytes": len(body),
        "status": answer.status_code,
        "answer_bytes": len(answer.content),
        "seconds": round(took, 3),
        "worst_health_ms": round(worst * 1000, 1),
    }


def main() -> None:
    """Start a server, post each body, print the JSON line."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="oh-bench-edge-") as folder:
        env = {
            **os.environ,
            "OH_CONVERSATIONS_PATH": f"{folder}/conversations",
            "OH_WORKSPACE_PATH": f"{folder}/workspaces",
            "OH_PRELOAD_LITELLM": "false",
        }
        server = subprocess.Popen(
            [sys.executable, "-m", "openhands.agent_server", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    sys.exit("bench/http_edge.py: the server did not start")
                time.sleep(0.1)
            cid = httpx.post(f"{url}/api/conversations", json={"agent": AGENT}).json()["id"]
            keys = {f"k{i:06d}": 1 for i in range(500_000)}
            bodies = {
                "500k_unknown_keys": ("/api/conversations", {"agent": AGENT, **keys}),
                "19k_unknown_keys": (
                    "/api/conversations",
                    {"agent": AGENT, **{f"k{i:05d}": 1 for i in range(19_000)}},
                ),
                "9k_bad_content_parts": (
                    f"/api/conversations/{cid}/events",
                    {"role": "user", "content": [{"type": "bogus"}] * 9_000},
                ),
            }
            results: dict[str, Any] = {"bench": "http_edge"}
            for name, (path, data) in bodies.items():
                results[name] = _measure(url, path, json.dumps(data).encode())
            results["load_average"] = round(os.getloadavg()[0], 1)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
