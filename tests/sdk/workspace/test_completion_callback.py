"""The automation completion callback of `with LocalWorkspace(...)`, against a loopback HTTP
server that records what it was sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk import LocalConversation
from openhands.sdk.workspace import LocalWorkspace


class _Service:
    """A loopback stand-in for the automation service: records each POST, answers `status`."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], dict[str, Any]]] = []
        self.status = 200
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                service.received.append((dict(self.headers), json.loads(body)))
                self.send_response(service.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/complete"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Service]:
    running = _Service()
    monkeypatch.setenv("AUTOMATION_CALLBACK_URL", running.url)
    monkeypatch.delenv("AUTOMATION_CALLBACK_API_KEY", raising=False)
    monkeypatch.delenv("AUTOMATION_RUN_ID", raising=False)
    yield running
    running.close()


def test_leaving_the_block_reports_completed_with_the_registered_cost(
    service: _Service, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTOMATION_RUN_ID", "run-7")
    monkeypatch.setenv("AUTOMATION_CALLBACK_API_KEY", "k3y")
    workspace = LocalWorkspace(working_dir=tmp_path)
    workspace.register_cost(0.4213)

    with workspace as entered:
        assert entered is workspace

    [(headers, body)] = service.received
    assert body == {"status": "COMPLETED", "run_id": "run-7", "cost": 0.4213}
    assert headers["Authorization"] == "Bearer k3y"
    assert workspace.accumulated_cost == 0.4213


def test_an_exception_in_the_block_is_reported_failed_and_still_raised(
    service: _Service, tmp_path: Path
) -> None:
    with pytest.raises(RuntimeError, match="disk full"), LocalWorkspace(working_dir=tmp_path):
        raise RuntimeError("disk full")

    [(_, body)] = service.received
    assert body == {"status": "FAILED", "error": {"code": "RuntimeError", "detail": "disk full"}}


def test_without_the_url_nothing_is_sent(service: _Service, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("AUTOMATION_CALLBACK_URL")

    with LocalWorkspace(working_dir=tmp_path) as workspace:
        workspace.register_cost(1.0)

    assert service.received == []


def test_a_refused_callback_does_not_change_the_outcome(
    service: _Service, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service.status = 503

    with LocalWorkspace(working_dir=tmp_path):
        pass

    assert len(service.received) == 1
    assert "completion callback" in caplog.text


def test_a_closed_conversation_registers_its_id_and_cost_on_its_workspace(
    service: _Service, tmp_path: Path, reply, persistence_dir: Path
) -> None:
    from openhands.sdk import Agent
    from openhands.sdk.testing import TestLLM

    workspace = LocalWorkspace(working_dir=tmp_path / "work")
    llm = TestLLM.from_messages([reply.text("hello")])
    with workspace:
        conversation = LocalConversation(
            Agent(llm=llm, tools=[]), workspace, persistence_dir=persistence_dir
        )
        conversation.send_message("hi")
        conversation.run()
        conversation.close()

    [(_, body)] = service.received
    assert body["status"] == "COMPLETED"
    assert body["conversation_id"] == str(conversation.id)
    assert body["cost"] == conversation.conversation_stats.get_combined_metrics().accumulated_cost


def test_a_registered_cost_does_not_make_two_workspaces_unequal(tmp_path: Path) -> None:
    billed = LocalWorkspace(working_dir=tmp_path)
    billed.register_cost(2.5)

    assert billed == LocalWorkspace(working_dir=tmp_path)
    assert billed != LocalWorkspace(working_dir=tmp_path / "other")
