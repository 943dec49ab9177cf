"""A goal worker calls only the agent servers it was configured with.

Temporal has no authentication by default, and a goal workflow's input names the agent
server by URL: anyone who could start a workflow in the namespace made the worker POST its
`OH_AGENT_SERVER_KEY` to a URL of their choice. A real Temporal dev server, a real worker
process and a recording HTTP server on loopback: the workflow naming the recorder ends
without a single request reaching it, and a worker without an allow-list does not start.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from openhands.agent_server.temporal.models import GoalRun, ServerRef
from openhands.sdk.conversation.goal import GoalController
from ports import free_port
from temporal.harness import TemporalDevServer, Worker
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from waits import EVENT_WAIT

SESSION_KEY = "session-key-for-the-real-servers-51c7"


class Recorder(BaseHTTPRequestHandler):
    """Records every request's path and headers; answers 503 (a server that is "down")."""

    seen: list[tuple[str, dict[str, str]]] = []
    arrived = threading.Event()

    def _record(self) -> None:
        Recorder.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
        Recorder.arrived.set()
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        self.send_response(503)
        self.send_header("content-length", "0")
        self.end_headers()

    do_GET = do_POST = _record

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def recorder() -> Iterator[str]:
    Recorder.seen = []
    Recorder.arrived = threading.Event()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def temporal(tmp_path: Path) -> Iterator[TemporalDevServer]:
    server = TemporalDevServer(tmp_path).start()
    yield server
    server.stop()


async def _run_workflow(address: str, queue: str, url: str) -> None:
    """Start a goal workflow naming `url` as its agent server; wait for its end (or the
    recorder's first request, whichever comes first), then make sure it is gone."""
    controller = GoalController("anything")
    controller.begin()
    client = await Client.connect(address, data_converter=pydantic_data_converter)
    run = GoalRun(
        server=ServerRef(url=url, conversation_id=str(uuid.uuid4())),
        run="forged-run",
        snapshot=controller.snapshot(),
    )
    handle = await client.start_workflow(
        "GoalWorkflow", run, id=f"forged-{uuid.uuid4().hex[:8]}", task_queue=queue
    )
    ended = asyncio.ensure_future(handle.result())
    arrived = asyncio.ensure_future(asyncio.to_thread(Recorder.arrived.wait, EVENT_WAIT))
    await asyncio.wait({ended, arrived}, timeout=EVENT_WAIT, return_when="FIRST_COMPLETED")
    if not ended.done():
        await handle.terminate(reason="test over")
    ended.cancel()
    Recorder.arrived.set()  # releases the waiting thread (asyncio.run waits for it)
    await asyncio.gather(ended, arrived, return_exceptions=True)


def test_a_workflow_naming_another_server_gets_nothing_from_the_worker(
    temporal: TemporalDevServer, recorder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OH_AGENT_SERVER_KEY", SESSION_KEY)
    queue = f"forged-{os.urandom(3).hex()}"
    configured = f"http://127.0.0.1:{free_port()}"
    worker = Worker(temporal.address, queue, tmp_path / "worker.log", [configured])
    try:
        asyncio.run(_run_workflow(temporal.address, queue, recorder))
    finally:
        worker.kill()

    assert all(SESSION_KEY not in str(headers) for _, headers in Recorder.seen)
    assert Recorder.seen == []  # not even a request without the key
    log = (tmp_path / "worker.log").read_text(errors="replace")
    assert f"Refused a goal step for agent server '{recorder}'" in log
    assert SESSION_KEY not in log


def test_a_worker_without_an_allow_list_does_not_start(temporal: TemporalDevServer) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OH_AGENT_SERVERS"}
    command = [sys.executable, "-m", "openhands.agent_server.temporal.worker"]
    try:
        done = subprocess.run(
            [*command, "--temporal", temporal.address],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the worker ran without knowing which agent servers it may call")
    assert done.returncode == 2
    assert "--server URL" in done.stderr and "OH_AGENT_SERVERS" in done.stderr

    bad = subprocess.run(
        [*command, "--temporal", temporal.address, "--server", "ftp://x"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "'ftp://x' is not an http:// or https:// URL" in bad.stderr
