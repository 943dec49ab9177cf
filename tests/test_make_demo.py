"""`make demo`: the fake LLM and the agent server start, answer, and stop together on Ctrl-C.

The test runs the real Makefile target with `-o install` (the workspace is installed already;
`make demo` itself depends on `make install`, like `make serve`), on free ports and a temp
folder, in its own process group so that Ctrl-C reaches every process it started.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import socket
import subprocess
import threading
from pathlib import Path

import httpx
import pytest
from ports import free_port
from waits import EVENT_WAIT

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = EVENT_WAIT
STOP_TIMEOUT = 30.0


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_demo_starts_both_servers_and_ctrl_c_stops_both(tmp_path: Path) -> None:
    port, llm_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OH_"))}
    process = subprocess.Popen(
        ["make", "--no-print-directory", "-o", "install", "demo", f"PORT={port}",
         f"DEMO_LLM_PORT={llm_port}", f"DEMO_DIR={tmp_path / 'demo'}", "DEMO_DELAY=0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    seen: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    try:
        while not any(line.startswith("demo: open http://") for line in seen):
            try:
                seen.append(lines.get(timeout=START_TIMEOUT))
            except queue.Empty:
                raise AssertionError(f"make demo did not get ready: {''.join(seen)}") from None

        health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=10)
        defaults = httpx.get(f"http://127.0.0.1:{port}/server_info", timeout=10).json()
        models = httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=10).json()
        answer = httpx.post(
            f"http://127.0.0.1:{llm_port}/v1/chat/completions",
            json={"model": "fake", "messages": [{"role": "user", "content": "hi"}]},
            timeout=10,
        )
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=STOP_TIMEOUT)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()

    assert health.json() == {"status": "ok"}
    assert defaults["llm_defaults"]["model"] == "openai/fake"
    assert defaults["llm_defaults"]["base_url"] == f"http://127.0.0.1:{llm_port}/v1"
    assert answer.status_code == 200
    # The gateway offers the demo's model out of the box.
    assert [m["id"] for m in models["data"]] == ["openhands_default", "openhands_goal_default"]
    assert not _listening(port) and not _listening(llm_port)
