"""What the server reads from a workspace or a plugin on the agent's behalf is the agent's to
shape: a project's AGENTS.md may be a link to `/proc/self/environ` or to the server's key, a
plugin's skill a FIFO or a link to `/dev/zero`. The server reads only regular files from
inside their folder, without blocking and within `OH_MAX_EXTENSION_FILE_BYTES`; anything
else is logged and skipped, and no secret of the server reaches the prompt or the events.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from agent_server.harness import ServerProcess, llm_spec, unique, wait_until
from openhands.agent_server.services.sealing import KEY_FILE_NAME
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

SERVER_LLM_KEY = "sk-server-own-llm-key-8d2e"
SESSION_KEY = "session-key-of-the-server-31ab"


@pytest.fixture
def root() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="oh-reads-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def server(root: Path) -> Iterator[ServerProcess]:
    env = {"LLM_API_KEY": SERVER_LLM_KEY, "OH_SESSION_API_KEYS": SESSION_KEY}
    process = ServerProcess(root / "conversations", env=env).start()
    yield process
    process.stop()


def _client(server: ServerProcess) -> httpx.Client:
    return server.client(api_key=SESSION_KEY)


def _create(http: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = http.post("/api/conversations", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def _secrets(root: Path) -> list[str]:
    return [SERVER_LLM_KEY, SESSION_KEY, (root / KEY_FILE_NAME).read_text().strip()]


def test_project_skills_linked_to_the_servers_secrets_are_never_read(
    root: Path, server: ServerProcess, fake_llm: FakeOpenAIServer
) -> None:
    work = root / "project"
    (work / ".agents" / "skills").mkdir(parents=True)
    (work / "AGENTS.md").symlink_to("/proc/self/environ")
    (work / "CLAUDE.md").symlink_to(root / KEY_FILE_NAME)
    (work / "GEMINI.md").symlink_to("/dev/zero")
    os.mkfifo(work / ".cursorrules")
    (work / ".agents" / "skills" / "passwd.md").symlink_to("/etc/passwd")
    (work / ".agents" / "skills" / "good.md").write_text("Always answer in French.\n")
    model = unique("agent")
    fake_llm.script(model, [FakeReply.text("bonjour")])
    agent = {
        "kind": "Agent",
        "llm": llm_spec(fake_llm, model),
        "agent_context": {"load_project_skills": True},
    }
    workspace = {"kind": "LocalWorkspace", "working_dir": str(work)}
    with _client(server) as http:
        cid = _create(http, {"agent": agent, "workspace": workspace})["id"]
        message = {"role": "user", "content": [{"type": "text", "text": "hi"}], "run": True}
        assert http.post(f"/api/conversations/{cid}/events", json=message).status_code == 200
        wait_until(
            lambda: http.get(f"/api/conversations/{cid}").json()["execution_status"] == "finished",
            what="the run to finish",
        )
        events = http.get(f"/api/conversations/{cid}/events/search", params={"limit": 100})
    prompt = json.dumps(fake_llm.requests_for(model))
    assert "Always answer in French." in prompt  # the regular skill is there
    stored = events.text + "".join(
        path.read_text(errors="replace") for path in (root / "conversations").rglob("*.json*")
    )
    for secret in _secrets(root):
        assert secret not in prompt
        assert secret not in stored
    assert "root:x:0:0" not in prompt
    assert "skipping skill" in server.log().lower() or "Skipping skill" in server.log()


def _plugin(root: Path, name: str) -> Path:
    plugin = root / name
    (plugin / ".plugin").mkdir(parents=True)
    (plugin / ".plugin" / "plugin.json").write_text(json.dumps({"name": name}))
    (plugin / "skills").mkdir()
    (plugin / "skills" / "fine.md").write_text("---\ntriggers: [fine]\n---\nA fine skill.\n")
    return plugin


def test_a_fifo_or_dev_zero_in_a_plugin_blocks_nothing_and_fills_no_memory(
    root: Path, server: ServerProcess, fake_llm: FakeOpenAIServer
) -> None:
    fifo_plugin = _plugin(root, "fifo-plugin")
    os.mkfifo(fifo_plugin / "skills" / "wait.md")
    zero_plugin = _plugin(root, "zero-plugin")
    (zero_plugin / "skills" / "zero.md").symlink_to("/dev/zero")
    (zero_plugin / ".mcp.json").symlink_to(root / KEY_FILE_NAME)
    huge = _plugin(root, "huge-plugin")
    (huge / "skills" / "huge.md").write_text("x" * 3_000_000)
    model = unique("agent")
    with _client(server) as http:
        for index in range(16):
            plugin = (fifo_plugin, zero_plugin, huge)[index % 3]
            body = {
                "agent": {"kind": "Agent", "llm": llm_spec(fake_llm, model)},
                "plugins": [{"source": str(plugin)}],
            }
            answer = http.post("/api/conversations", json=body)
            # The plugin is refused or loaded without the bad file: never a hang.
            assert answer.status_code in (201, 400, 422), answer.text
        assert http.get("/health").status_code == 200
        listed = http.get("/api/conversations/search", params={"limit": 100})
        assert listed.status_code == 200
    assert server.process is not None
    rss = psutil.Process(server.process.pid).memory_info().rss
    assert rss < 1_000_000_000, f"the server holds {rss} bytes after reading /dev/zero links"
