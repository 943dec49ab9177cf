"""The agent's processes run in bubblewrap: they see their workspace and nothing of the server.

Real servers with OH_SANDBOX=bwrap, rooted under /var/tmp (not /tmp, which the sandbox
replaces anyway: the hiding rules must do the work). The agent's terminal (driven by the
fake LLM), a hook, an MCP stdio server, `verify` and /api/bash are tried as an attacker
would: the key file, the conversations folder, another conversation's workspace and the
server's process must be out of reach, the workspace writable, and the server's port (and
any other loopback service) unreachable, with the network on or off.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_server.harness import (
    ServerProcess,
    llm_spec,
    unique,
    verdict,
    wait_goal_end,
    wait_until,
)
from openhands.agent_server.services.sealing import KEY_FILE_NAME
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from sandbox_support import needs_bwrap

pytestmark = [
    pytest.mark.timeout(180),
    needs_bwrap,
]

TOOLS_SERVER = Path(__file__).parents[1] / "sdk" / "mcp" / "servers" / "tools_server.py"
CONNECT = (
    "{python} -c \"import socket, sys\ntry:\n    socket.create_connection(('{host}', {port}), "
    "timeout=5)\n    print('CONNECTED')\nexcept OSError as exc:\n    print('REFUSED', exc.errno)\""
)


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake LLM server (on 127.0.0.1: a loopback service the agent must not reach)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def root() -> Iterator[Path]:
    """A server folder outside /tmp, removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="oh-sandbox-test-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    """Servers a test starts; stopped at the end whatever happened."""
    started: list[ServerProcess] = []
    yield started
    for process in started:
        process.stop()


def _start(servers: list[ServerProcess], root: Path, **env: str) -> ServerProcess:
    process = ServerProcess(root / "conversations", env={"OH_SANDBOX": "bwrap", **env}).start()
    servers.append(process)
    return process


def _create(
    server: ServerProcess, fake: FakeOpenAIServer, model: str, **extra: Any
) -> dict[str, Any]:
    agent = {"kind": "Agent", "llm": llm_spec(fake, model), "tools": [{"name": "terminal"}]}
    agent.update(extra.pop("agent", {}))
    with server.client() as http:
        response = http.post("/api/conversations", json={"agent": agent, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def _observations(server: ServerProcess, cid: str) -> list[str]:
    with server.client() as http:
        items = http.get(
            f"/api/conversations/{cid}/events/search",
            params={"kind": "ObservationEvent", "limit": 100},
        ).json()["items"]
    return [part["text"] for item in items for part in item["observation"]["content"]]


def _run_tools(
    server: ServerProcess,
    fake: FakeOpenAIServer,
    model: str,
    cid: str,
    calls: list[FakeReply],
) -> list[str]:
    """Let the agent make `calls` (one per step); return the new observations' texts."""
    before = len(_observations(server, cid))
    fake.script(model, [*calls, FakeReply.text("done")])
    body = {"role": "user", "content": [{"type": "text", "text": "go"}], "run": True}
    with server.client() as http:
        assert http.post(f"/api/conversations/{cid}/events", json=body).status_code == 200
        wait_until(
            lambda: http.get(f"/api/conversations/{cid}").json()["execution_status"] == "finished",
            timeout=120,
            what="the run to finish",
        )
    return _observations(server, cid)[before:]


def _terminal(command: str) -> FakeReply:
    return FakeReply.tool_call("terminal", {"command": command})


def test_the_terminal_sees_its_workspace_and_nothing_of_the_server(
    root: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    server = _start(servers, root)
    model = unique("agent")
    other = _create(server, fake_llm, unique("other"))  # a default working dir
    other_dir = Path(other["workspace"]["working_dir"])
    (other_dir / "other-secret.txt").write_text("other conversation's file")
    custom = root / "custom-work"
    custom.mkdir()
    (custom / "custom-secret.txt").write_text("custom workspace's file")
    _create(
        server,
        fake_llm,
        unique("custom"),
        workspace={"kind": "LocalWorkspace", "working_dir": str(custom)},
    )
    mine = _create(server, fake_llm, model)
    key = (root / KEY_FILE_NAME).read_text().strip()
    assert server.process is not None

    with server.client() as http:  # the server's secrets store, beside the conversations
        stored = http.put("/api/settings/secrets", json={"name": "GH", "value": "ghp-stored"})
    assert stored.status_code == 200, stored.text
    assert any((root / "settings").iterdir())

    [key_seen, listing, others, proc, wrote, settings] = _run_tools(
        server,
        fake_llm,
        model,
        mine["id"],
        [
            _terminal(f"cat {root / KEY_FILE_NAME}"),
            _terminal(f"ls -A {root / 'conversations'}; echo END"),
            _terminal(f"cat {other_dir}/other-secret.txt {custom}/custom-secret.txt"),
            _terminal(f"cat /proc/{server.process.pid}/environ; ls /proc | grep -c '^[0-9]'"),
            _terminal("echo written-inside > mine.txt && cat mine.txt"),
            _terminal(f"ls -A {root / 'settings'}; cat {root / 'settings'}/* 2>&1; echo END"),
        ],
    )

    assert key not in key_seen
    assert listing.split("END")[0].strip() == ""
    assert "other conversation's file" not in others and "custom workspace's file" not in others
    assert "No such file" in proc
    assert int(proc.strip().splitlines()[-1].split()[0]) < 10  # only its own processes
    assert "written-inside" in wrote
    assert settings.split("END")[0].strip().endswith("No such file or directory"), settings
    workspace = Path(mine["workspace"]["working_dir"])
    assert (workspace / "mine.txt").read_text() == "written-inside\n"


def test_hooks_mcp_servers_and_api_bash_are_sandboxed_too(
    root: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    server = _start(servers, root)
    model = unique("agent")
    key_file = root / KEY_FILE_NAME
    hook = f"cat {key_file} > hook-saw.txt 2>&1; ls -A {root / 'conversations'} >> hook-saw.txt"
    mine = _create(
        server,
        fake_llm,
        model,
        agent={"mcp_config": {"t": {"command": sys.executable, "args": [str(TOOLS_SERVER)]}}},
        hook_config={"user_prompt_submit": [{"hooks": [{"type": "command", "command": hook}]}]},
    )
    workspace = Path(mine["workspace"]["working_dir"])
    key = key_file.read_text().strip()

    [whoami] = _run_tools(server, fake_llm, model, mine["id"], [FakeReply.tool_call("whoami", {})])
    probe_secrets = f"cat {key_file}; ls -A {root / 'conversations'}; echo END"
    with server.client() as http:
        bash = http.post("/api/bash/execute_bash_command", json={"command": probe_secrets}).json()
        # A command cannot be started inside the conversations folder (its sandbox would
        # make that folder its writable workspace): refused, naming the field.
        inside = http.post(
            "/api/bash/execute_bash_command",
            json={"command": probe_secrets, "cwd": str(root / "conversations")},
        )
        started = http.post("/api/bash/start_bash_command", json={"command": probe_secrets})
        command_id = started.json()["id"]
        background = wait_until(
            lambda: next(
                (
                    item
                    for item in http.get(
                        "/api/bash/bash_events/search",
                        params={"kind__eq": "BashOutput", "command_id__eq": command_id},
                    ).json()["items"]
                ),
                None,
            ),
            timeout=60,
            what="the background command's output",
        )

    saw = (workspace / "hook-saw.txt").read_text()
    assert key not in saw and mine["id"].replace("-", "") not in saw
    pid = int(whoami.split()[0])
    assert pid < 10, whoami  # a PID namespace of its own
    assert inside.status_code == 422 and inside.json()["detail"][0]["loc"] == ["body", "cwd"]
    for answer in (bash, background):
        seen = answer["stdout"]
        assert "END" in seen, answer  # the command ran
        assert key not in seen and mine["id"].replace("-", "") not in seen, answer
        # The key file cannot be read (or reads empty), the conversations folder lists empty.
        listed = [line for line in seen.split("END")[0].splitlines() if line.strip()]
        assert all(line.startswith("cat: ") for line in listed), answer


def test_verify_runs_pytest_in_the_sandbox(
    root: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    server = _start(servers, root)
    model, judge = unique("agent"), unique("judge")
    mine = _create(server, fake_llm, model)
    workspace = Path(mine["workspace"]["working_dir"])
    (workspace / "test_ok.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n")
    fake_llm.script(model, [FakeReply.text("done")])
    fake_llm.script(judge, [verdict(True)])
    goal = {
        "objective": "tests pass",
        "verify": f"{sys.executable} -m pytest -q -p no:cacheprovider",
        "judge_llm": llm_spec(fake_llm, judge),
    }
    with server.client() as http:
        assert http.post(f"/api/conversations/{mine['id']}/goal", json=goal).status_code == 200
        status = wait_goal_end(
            lambda: http.get(f"/api/conversations/{mine['id']}/goal").json(), 120.0
        )

    assert status["status"] == "complete", status
    assert status["verify"]["exit_code"] == 0, status["verify"]
    assert "1 passed" in status["verify"]["output_tail"]


@pytest.mark.parametrize("network", ["true", "false"])
def test_the_server_port_and_other_loopback_services_are_out_of_reach(
    root: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess], network: str
) -> None:
    server = _start(servers, root, OH_SANDBOX_NETWORK=network)
    model = unique("agent")
    mine = _create(server, fake_llm, model)
    python = sys.executable

    seen = _run_tools(
        server,
        fake_llm,
        model,
        mine["id"],
        [
            _terminal(CONNECT.format(python=python, host="127.0.0.1", port=server.port)),
            _terminal(CONNECT.format(python=python, host="127.0.0.1", port=fake_llm.port)),
            # 10.0.2.2 is how slirp4netns would reach the host's loopback: refused too.
            _terminal(CONNECT.format(python=python, host="10.0.2.2", port=server.port)),
            _terminal("cat /proc/net/route"),
        ],
    )

    [own_port, other_service, host_gateway, routes] = seen
    for attempt in (own_port, other_service, host_gateway):
        assert "REFUSED" in attempt and "CONNECTED" not in attempt, attempt
    # With network, a default route through the user-mode stack; without, none at all.
    default_route = any(
        line.split()[:2] == ["tap0", "00000000"] for line in routes.splitlines()[1:]
    )
    assert default_route is (network == "true"), routes
    with server.client() as http:
        info = http.get("/server_info").json()["sandbox"]
    assert info["active"] is True
    assert info["network"] == ("isolated" if network == "true" else "none")


def test_a_fork_shares_the_sandboxed_workspace_through_kill_9_and_delete(
    root: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    """Fork, restart and DELETE meet the sandbox: the fork works in the source's folder (and
    only there), also after kill -9; deleting the source keeps the folder for the fork, whose
    terminal still writes it; a deleted conversation's folder is gone for everyone."""
    server = _start(servers, root)
    model = unique("agent")
    source = _create(server, fake_llm, model)
    shared = Path(source["workspace"]["working_dir"])
    _run_tools(server, fake_llm, model, source["id"], [_terminal("echo from-source > a.txt")])
    other = _create(server, fake_llm, unique("other"))
    other_dir = Path(other["workspace"]["working_dir"])
    (other_dir / "other-secret.txt").write_text("other conversation's file")
    with server.client() as http:
        forked = http.post(f"/api/conversations/{source['id']}/fork", json={})
    assert forked.status_code == 201, forked.text
    fork = forked.json()
    assert fork["workspace"]["working_dir"] == str(shared)

    server.kill()
    server = _start(servers, root)
    key = (root / KEY_FILE_NAME).read_text().strip()
    peek = f"cat a.txt; cat {other_dir}/other-secret.txt; cat {root / KEY_FILE_NAME}; echo END"
    [seen] = _run_tools(server, fake_llm, model, fork["id"], [_terminal(peek)])
    assert "from-source" in seen, seen
    assert "other conversation's file" not in seen and key not in seen, seen

    with server.client() as http:
        deleted = http.delete(f"/api/conversations/{source['id']}")
    assert deleted.status_code == 200, deleted.text
    assert [kept["path"] for kept in deleted.json()["kept"]] == [str(shared)]
    [wrote] = _run_tools(
        server, fake_llm, model, fork["id"], [_terminal("echo from-fork > b.txt && cat b.txt")]
    )
    assert "from-fork" in wrote and (shared / "b.txt").read_text() == "from-fork\n"

    with server.client() as http:
        assert http.delete(f"/api/conversations/{fork['id']}").status_code == 200
    assert not shared.exists()


def test_the_agent_s_file_tools_cannot_read_the_key_or_the_conversations_either(
    root: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    """The file editor and the search tools run in the server's process, not in bubblewrap:
    they refuse what the sandbox hides, so a prompt-injected agent cannot use them instead."""
    server = _start(servers, root)
    model = unique("agent")
    tools = [{"name": "file_editor"}, {"name": "grep"}, {"name": "glob"}]
    mine = _create(server, fake_llm, model, agent={"tools": tools})
    other = _create(server, fake_llm, unique("other"))
    (Path(other["workspace"]["working_dir"]) / "other-secret.txt").write_text("other's file")
    key_file = root / KEY_FILE_NAME
    key = key_file.read_text().strip()
    events = root / "conversations" / mine["id"].replace("-", "") / "events.jsonl"
    assert events.exists()
    with server.client() as http:  # the server's secrets store, beside the conversations
        stored = http.put("/api/settings/secrets", json={"name": "GH", "value": "ghp-stored"})
    assert stored.status_code == 200, stored.text
    settings = root / "settings"
    assert settings.is_dir() and any(settings.iterdir())

    seen = _run_tools(
        server,
        fake_llm,
        model,
        mine["id"],
        [
            FakeReply.tool_call("file_editor", {"command": "view", "path": str(key_file)}),
            FakeReply.tool_call("file_editor", {"command": "view", "path": str(events)}),
            FakeReply.tool_call("grep", {"pattern": key[:12], "path": str(root)}),
            FakeReply.tool_call("glob", {"pattern": "**/*.txt", "path": str(root)}),
            FakeReply.tool_call("file_editor", {"command": "view", "path": str(settings)}),
            FakeReply.tool_call("glob", {"pattern": "**/*", "path": str(root)}),
        ],
    )

    [view_key, view_log, grep, glob, view_settings, everything] = seen
    for answer in (view_key, view_log, view_settings):
        assert "hidden from the agent" in answer and key not in answer, answer
    assert str(settings) not in everything and "conversations" not in everything, everything
    assert "No matching files found" in grep, grep
    assert "other-secret.txt" not in glob, glob
