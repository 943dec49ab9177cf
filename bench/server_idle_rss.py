"""Benchmark: the agent server's idle memory with default settings and an OpenAI-compatible model.

The server starts with nothing but `LLM_MODEL=openai/<model>`, `LLM_BASE_URL` (a local fake
OpenAI-compatible server in its own process) and `LLM_API_KEY`: every other setting is its
default, the litellm preload included. Measured: VmRSS once the server is idle (its RSS has
not changed for `--settle` seconds, after /health answered), then again after one
conversation has run one turn against the fake model and the server is idle again; and
whether litellm got imported (the server's log says "litellm preloaded"). `--runs` fresh
servers. `--python` runs another checkout's interpreter (e.g. the code before a change).
Prints one JSON line. Target: <= 90 MB idle.

Usage: `uv run python bench/server_idle_rss.py [--runs N] [--python PY] [--settle S]`.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_IDLE_MB = 90.0
START_TIMEOUT_S = 120.0

FAKE = """
import sys, threading
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
server = FakeOpenAIServer(port=int(sys.argv[1])).start()
server.set_responder("*", lambda body: FakeReply.text("done", prompt_tokens=50, completion_tokens=3))
print("ready", flush=True)
threading.Event().wait()
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _request(port: int, method: str, path: str, body: object = None) -> tuple[int, object]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if payload else {}
        connection.request(method, path, body=payload, headers=headers)
        response = connection.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else None
    finally:
        connection.close()


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _settled_rss(pid: int, settle: float, limit: float = 60.0) -> float:
    """The RSS once it has stayed the same (within 0.5 MB) for `settle` seconds."""
    deadline = time.monotonic() + limit
    last, since = _rss_mb(pid), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = _rss_mb(pid)
        if abs(now - last) > 0.5:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= settle:
            return now
    return last


def _one_server(python: str, fake_url: str, settle: float) -> dict[str, float | bool]:
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="oh-rss-") as folder:
        env = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith(("OH_", "LLM_"))
        }
        env.update(
            OH_CONVERSATIONS_PATH=f"{folder}/conversations",
            OH_WORKSPACE_PATH=f"{folder}/workspaces",
            LLM_MODEL="openai/fake-model",
            LLM_BASE_URL=fake_url,
            LLM_API_KEY="fake-key",
            PYTHONUNBUFFERED="1",
        )
        log_path = Path(folder) / "server.log"
        with open(log_path, "wb") as log:
            server = subprocess.Popen(
                [python, "-m", "openhands.agent_server", "--port", str(port)],
                env=env,
                cwd=folder,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while True:
                try:
                    if _request(port, "GET", "/health")[0] == 200:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(f"server did not start:\n{log_path.read_text()}")
                time.sleep(0.05)
            idle = _settled_rss(server.pid, settle)
            agent = {"kind": "Agent", "llm": {"model": "openai/fake-model", "num_retries": 0}}
            message = {"content": [{"type": "text", "text": "hi"}], "run": True}
            status, created = _request(
                port, "POST", "/api/conversations", {"agent": agent, "initial_message": message}
            )
            assert status in (200, 201), created
            cid = created["id"]  # type: ignore[index]
            while _request(port, "GET", f"/api/conversations/{cid}")[1]["execution_status"] not in (  # type: ignore[index]
                "finished",
                "error",
            ):
                time.sleep(0.05)
            after_turn = _settled_rss(server.pid, settle)
            preloaded = "litellm preloaded" in log_path.read_text()
        finally:
            server.terminate()
            server.wait(timeout=30)
    return {"idle_mb": round(idle, 1), "after_turn_mb": round(after_turn, 1), "litellm": preloaded}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--settle", type=float, default=2.0)
    args = parser.parse_args()
    fake_port = _free_port()
    fake = subprocess.Popen(
        [args.python, "-c", FAKE, str(fake_port)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert fake.stdout is not None and fake.stdout.readline().strip() == "ready"
        runs = [
            _one_server(args.python, f"http://127.0.0.1:{fake_port}/v1", args.settle)
            for _ in range(args.runs)
        ]
    finally:
        fake.terminate()
        fake.wait(timeout=10)
    idle = statistics.median(float(r["idle_mb"]) for r in runs)
    print(
        json.dumps(
            {
                "bench": "server_idle_rss",
                "python": args.python,
                "idle_mb_median": idle,
                "after_turn_mb_median": statistics.median(float(r["after_turn_mb"]) for r in runs),
                "runs": runs,
                "target_idle_mb": TARGET_IDLE_MB,
                "meets_target": idle <= TARGET_IDLE_MB,
                "loadavg": [round(x, 2) for x in os.getloadavg()],
                "date": time.strftime("%Y-%m-%d %H:%M"),
            }
        )
    )


if __name__ == "__main__":
    main()
