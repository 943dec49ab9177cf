"""A workspace (or /api/bash `cwd`) that would undo the sandbox is refused, by name.

The sandbox binds its workspace writable over a read-only system with its own /proc, /dev
and /tmp. A workspace of `/` bound that way covered all three with the host's: the host's
process list and command lines were visible and the whole file system writable; /proc or
/dev did the same for their part, and a folder holding the server's data let the agent
write next to its key and conversations. Now the server answers 422 naming the field, the
SDK's commands fail with `UnsafeWorkspaceError`'s message, and no mount the sandbox makes
can uncover the host's /proc.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_server.harness import ServerProcess
from openhands.sdk.workspace import LocalWorkspace, sandbox_command
from sandbox_support import needs_bwrap

pytestmark = [pytest.mark.timeout(300), needs_bwrap]


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    """A sandboxed server with its data under /var/tmp (removed afterwards)."""
    root = Path(tempfile.mkdtemp(prefix="oh-root-test-", dir="/var/tmp"))
    process = ServerProcess(root / "data" / "conversations", env={"OH_SANDBOX": "bwrap"})
    (root / "data").mkdir()
    process.start()
    yield process
    process.stop()
    shutil.rmtree(root, ignore_errors=True)


def _unsafe_folders(server: ServerProcess) -> list[str]:
    data = server.conversations.parent
    return ["/", "/proc", "/proc/1", "/dev", "/dev/shm", "/sys", str(data), str(data.parent)]


def test_api_bash_refuses_a_cwd_that_would_undo_the_sandbox(server: ServerProcess) -> None:
    answers = {}
    with server.client() as http:
        for folder in _unsafe_folders(server):
            answers[folder] = http.post(
                "/api/bash/execute_bash_command",
                json={"command": "ls /proc | grep -c '^[0-9]'", "cwd": folder},
            )
        started = http.post("/api/bash/start_bash_command", json={"command": "true", "cwd": "/"})

    for folder, answer in answers.items():
        assert answer.status_code == 422, (folder, answer.text)
        [problem] = answer.json()["detail"]
        assert problem["loc"] == ["body", "cwd"]
        assert folder in problem["msg"], problem
    assert started.status_code == 422


def test_a_conversation_on_such_a_workspace_is_refused(server: ServerProcess) -> None:
    agent = {
        "kind": "Agent",
        "llm": {"model": "openai/fake", "base_url": "http://127.0.0.1:9/v1", "api_key": "x"},
        "tools": [{"name": "terminal"}],
    }
    with server.client() as http:
        for folder in _unsafe_folders(server):
            answer = http.post(
                "/api/conversations",
                json={
                    "agent": agent,
                    "workspace": {"kind": "LocalWorkspace", "working_dir": folder},
                },
            )
            assert answer.status_code == 422, (folder, answer.text)
            [problem] = answer.json()["detail"]
            assert problem["loc"] == ["body", "workspace", "working_dir"], problem
            assert folder in problem["msg"]
        assert http.get("/api/conversations/count").json() == 0


def test_the_sdk_refuses_root_as_a_sandboxed_workspace() -> None:
    result = LocalWorkspace(working_dir="/", sandbox="bwrap").execute_command(
        "ls /proc | grep -c '^[0-9]'"
    )

    assert result.exit_code == 127, result
    assert "/ is the whole file system" in result.output, result.output


def test_no_mount_uncovers_the_host_s_proc(tmp_path: Path) -> None:
    # A folder to show read-only that holds /proc (here `/` itself) is never bound: the
    # sandbox keeps its own /proc, with only its own processes.
    argv = sandbox_command(
        ["sh", "-c", "ls /proc | grep -c '^[0-9]'"],
        workspace=tmp_path,
        readable=["/"],
        mode="bwrap",
    )
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) < 10, done.stdout
    assert len([name for name in os.listdir("/proc") if name.isdigit()]) > 10
