"""What a kill -9 in the middle of an atomic write leaves is removed when the server starts.

`write_atomic` writes `.<name>.<random>.tmp` and renames it over the file. A process killed
between the two (here: a real SIGKILL of a child process at the rename, through the real
stores) leaves the temp file, which nothing removed: `.settings.json.*.tmp`, a profile's,
`secrets.json`'s (sealed values), a conversation's `base_state.json`. A real server started on
that folder must remove them and keep every real file as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agent_server.harness import ServerProcess

CHILD = """
import os, signal, sys, uuid
from pathlib import Path
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.services.sealing import SecretBox
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk import Agent, LocalConversation
from openhands.sdk.llm import LLM
from openhands.sdk.security import AlwaysConfirm, NeverConfirm
from openhands.sdk.settings.api_models import SettingsUpdateRequest
from openhands.sdk.testing import TestLLM

root, step, conversation_id = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
# This process only writes and dies: it must not clean what the previous one left (that is
# the server's job at its start, under test here).
import importlib
for name in (
    "openhands.agent_server.services.server_settings",
    "openhands.agent_server.services.sealing",
    "openhands.sdk.conversation.state",
):
    module = importlib.import_module(name)
    if hasattr(module, "remove_leftover_temp_files"):
        module.remove_leftover_temp_files = lambda *args, **kwargs: []
config = ServerConfig.from_env({"OH_CONVERSATIONS_PATH": str(root / "conversations")})
stores = ServerSettings(config, SecretBox.from_config(config))
stores.load()

real = os.replace
def replace(source, target, *args, **kwargs):
    if os.path.basename(os.fspath(target)) == step:
        os.kill(os.getpid(), signal.SIGKILL)  # the temp file is written and fsynced
    return real(source, target, *args, **kwargs)

conversation = LocalConversation(
    Agent(llm=TestLLM.from_messages([])),
    str(root / "work"),
    persistence_dir=str(root / "conversations"),
    conversation_id=uuid.UUID(conversation_id),
)
os.replace = replace
first = step == "first"
value = "first" if first else "second"
if first or step == "settings.json":
    stores.settings.update(SettingsUpdateRequest(misc_settings_diff={"written": value}))
if first or step == "secrets.json":
    stores.secrets.put("TOKEN", "sealed-" + value, None)
if first or step == "keep.json":
    stores.profiles.save("keep", LLM(model="openai/" + value, api_key="k"), include_secrets=True)
if first or step == "base_state.json":
    conversation.set_confirmation_policy(AlwaysConfirm() if first else NeverConfirm())
print("no kill", flush=True)
"""

STEPS = ["settings.json", "secrets.json", "keep.json", "base_state.json"]


def _temp_files(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*.tmp"))


def _child(root: Path, step: str, cid: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(root), step, cid],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "server"
    folder.mkdir()
    return folder


def test_temp_files_of_writes_killed_at_the_rename_are_removed_at_start(root: Path) -> None:
    cid = "5d1b4c3e-0000-4000-8000-00000000c0de"
    first = _child(root, "first", cid)
    assert first.returncode == 0 and "no kill" in first.stdout, first.stderr[-3000:]
    before = {path: path.read_bytes() for path in root.rglob("*.json") if path.is_file()}
    for step in STEPS:
        done = _child(root, step, cid)
        assert done.returncode == -9, (step, done.stderr[-3000:])
    left = _temp_files(root)
    assert {path.name.split(".")[1] for path in left} >= {
        "settings",
        "secrets",
        "keep",
        "base_state",
    }

    server = ServerProcess(root / "conversations").start()
    try:
        with server.client() as http:
            assert http.get("/api/settings").json()["misc_settings"]["written"] == "first"
            opened = http.get(f"/api/conversations/{cid}/events/search")
            assert opened.status_code == 200, opened.text
            info = http.get(f"/api/conversations/{cid}").json()
            assert info["confirmation_policy"]["kind"] == "AlwaysConfirm"
    finally:
        server.stop()

    assert _temp_files(root) == []
    after = {path: path.read_bytes() for path in before}
    assert after == before  # every real file is the first write's
    assert "Removed 1 temp file(s) of interrupted writes" in server.log()


def test_leftovers_in_the_settings_and_profiles_folders_are_removed_at_start(
    root: Path,
) -> None:
    settings = root / "settings"
    (settings / "profiles").mkdir(parents=True)
    old = settings / ".settings.json.k3l9x0ab.tmp"
    old_profile = settings / "profiles" / ".mine.json.a1b2c3d4.tmp"
    unrelated = settings / "notes.tmp"  # not a name write_atomic makes
    for path in (old, old_profile, unrelated):
        path.write_text("{}")
        os.utime(path, (time.time() - 3600, time.time() - 3600))
    server = ServerProcess(root / "conversations")
    server.start()
    try:
        assert not old.exists() and not old_profile.exists()
        assert unrelated.exists()
    finally:
        server.stop()
