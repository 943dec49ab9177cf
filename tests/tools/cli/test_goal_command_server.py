"""`openhands-goal --server`: the same goal, run by a real agent server process, its progress
streamed over the conversation's socket."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from agent_server.harness import ServerProcess
from goal_process import GoalProcess, json_lines, run_goal_command
from openhands.sdk.testing import DemoScript, FakeOpenAIServer
from openhands.sdk.testing.demo_script import DEMO_FILE, DEMO_TEST
from ports import free_port

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    """The demo script, answering after a short delay (time for Ctrl-C mid-round)."""
    with FakeOpenAIServer() as server:
        server.set_responder("*", DemoScript(delay=0.3))
        yield server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One agent server process for the module."""
    process = ServerProcess(tmp_path_factory.mktemp("server") / "conversations").start()
    yield process
    process.stop()


def _goal_on_server(server: ServerProcess, conversation_id: str) -> dict[str, object]:
    with server.client() as client:
        answer = client.get(f"/api/conversations/{conversation_id}/goal")
    answer.raise_for_status()
    return answer.json()


def test_a_goal_on_the_server_shows_the_same_progress_and_exits_0(
    fake: FakeOpenAIServer, server: ServerProcess, workspace_dir: Path
) -> None:
    code, lines, _ = run_goal_command(
        fake, workspace_dir, "greet the world", "--server", server.url, "--plain"
    )

    assert code == 0
    assert f"round 1 of 10 | agent | terminal: python3 {DEMO_FILE}" in lines
    assert "round 1 of 10 | judging..." in lines
    assert any(line.startswith("round 1: not complete | score 0.67") for line in lines)
    assert any(line.startswith("round 2: complete | score 1.00") for line in lines)
    assert lines[-1].startswith("goal complete after 2 rounds")
    assert (workspace_dir / DEMO_TEST).is_file()  # the server's agent worked in this folder


def test_json_lines_from_the_server_are_the_statuses_of_its_goal(
    fake: FakeOpenAIServer, server: ServerProcess, workspace_dir: Path
) -> None:
    code, lines, _ = run_goal_command(
        fake, workspace_dir, "greet", "--server", server.url, "--json", "--max-iterations", "1"
    )

    statuses = json_lines(lines)
    assert code == 1
    assert statuses[0]["phase"] == "agent" and statuses[0]["objective"] == "greet"
    assert statuses[-1]["status"] == "capped"
    assert [s["active"] for s in statuses].count(False) == 1  # the end is printed once
    assert statuses[-1] == {
        **_goal_on_server(server, statuses[-1]["conversation_id"]),
        "conversation_id": statuses[-1]["conversation_id"],
    }


def _stop_mid_round(
    fake: FakeOpenAIServer, server: ServerProcess, workspace: Path
) -> tuple[int, list[str]]:
    process = GoalProcess(fake, workspace, "greet the world", "--server", server.url, "--plain")
    process.wait_for_line(f"agent | file_editor: create {DEMO_FILE}")
    process.interrupt()
    code, lines, _ = process.finish()
    return code, lines


def test_ctrl_c_stops_the_goal_on_the_server_and_exits_2(
    fake: FakeOpenAIServer, server: ServerProcess, workspace_dir: Path
) -> None:
    code, lines = _stop_mid_round(fake, server, workspace_dir)

    conversation = next(line for line in lines if line.startswith("conversation ")).split()[1]
    assert code == 2
    assert any(line.startswith("goal interrupted (stopped by user)") for line in lines)
    assert lines[-1] == (
        f"resume it with: openhands-goal --resume --conversation-id {conversation} "
        f"--server {server.url}"
    )
    goal = _goal_on_server(server, conversation)
    assert (goal["status"], goal["active"]) == ("interrupted", False)


def test_resume_on_the_server_finds_the_stopped_goal_of_this_folder_and_completes_it(
    fake: FakeOpenAIServer, server: ServerProcess, workspace_dir: Path
) -> None:
    _, stopped = _stop_mid_round(fake, server, workspace_dir)

    code, lines, _ = run_goal_command(fake, workspace_dir, "--resume", "--server", server.url)

    assert code == 0
    assert lines[0].startswith("resuming goal (after 0 of 10 rounds): greet the world")
    assert lines[1].split()[1] == stopped[1].split()[1]  # the same conversation
    assert lines[-1].startswith("goal complete after 2 rounds")


def test_an_unreachable_server_exits_2_saying_how_to_start_one(
    fake: FakeOpenAIServer, workspace_dir: Path
) -> None:
    url = f"http://127.0.0.1:{free_port()}"

    code, lines, err = run_goal_command(fake, workspace_dir, "greet", "--server", url)

    assert (code, lines) == (2, [])
    assert url in err and "make serve" in err and "--server" in err
    assert "RemoteWorkspace" not in err


def test_a_wrong_session_key_exits_2_naming_the_key(
    fake: FakeOpenAIServer, tmp_path: Path, workspace_dir: Path
) -> None:
    keyed = ServerProcess(tmp_path / "conversations", env={"OH_SESSION_API_KEYS": "right"}).start()
    try:
        code, _, err = run_goal_command(
            fake, workspace_dir, "greet", "--server", keyed.url, "--api-key", "wrong"
        )
        with httpx.Client(base_url=keyed.url) as client:
            listed = client.get("/api/conversations/count", headers={"X-Session-API-Key": "right"})
    finally:
        keyed.stop()

    assert code == 2
    assert "rejected the session key (HTTP 401): pass --api-key or set OH_SESSION_API_KEY" in err
    assert "RemoteWorkspace" not in err  # the command's flags, not the SDK's names
    assert listed.json() == 0
