"""The Credentials seam in the server: created before a create is acknowledged, judges kept
only for goals that start, rotation at start-up, an unusable key refused at app creation."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from openhands.agent_server.app import create_app
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.config import ServerConfig, ServerConfigError
from openhands.agent_server.errors import ConflictError
from openhands.agent_server.services.credentials import ServerDefaults, goal_judge
from openhands.agent_server.services.sealed_credentials import SEALED_FILE, SealedCredentials
from openhands.agent_server.services.sealing import KEY_FILE_NAME, SecretBox
from openhands.sdk import LLM, Agent
from openhands.sdk.errors import StorageFullError
from pydantic import SecretStr

from ..harness import wait_until

pytestmark = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.UnsupportedFieldAttributeWarning"
)

OLD = "old-sealing-key-" + "o" * 40
NEW = "new-sealing-key-" + "n" * 40
CREATE = {"agent": {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "sk-client-1"}}}


def _config(root: Path, **settings: str) -> ServerConfig:
    return ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(root / "conversations"),
            "OH_WORKSPACE_PATH": str(root / "workspaces"),
            "OH_PRELOAD_LITELLM": "false",
            "OH_ALLOWED_HOSTS": "testserver",  # the test client's Host
            **settings,
        }
    )


class RefusingDisk(ServerDefaults):
    """Server defaults whose write of the kept keys meets a full disk."""

    def created(self, conversation_id: uuid.UUID) -> None:
        raise StorageFullError("no space left on device")


def test_a_create_whose_keys_cannot_be_written_is_507_and_leaves_nothing(tmp_path: Path) -> None:
    config = _config(tmp_path)
    with TestClient(create_app(config, credentials=RefusingDisk(config))) as client:
        answer = client.post("/api/conversations", json=CREATE)
        listed = client.get("/api/conversations/count").json()

    assert answer.status_code == 507, answer.text
    assert listed == 0
    assert list((tmp_path / "conversations").iterdir()) == []
    assert not (tmp_path / "workspaces").exists() or not any((tmp_path / "workspaces").iterdir())


def test_the_server_seals_again_at_start_what_an_older_key_sealed(tmp_path: Path) -> None:
    with TestClient(create_app(_config(tmp_path, OH_SECRET_KEY=OLD))) as client:
        cid = uuid.UUID(client.post("/api/conversations", json=CREATE).json()["id"])

    rotating = _config(tmp_path, OH_SECRET_KEY=f"{NEW},{OLD}")
    with TestClient(create_app(rotating)):
        only_new = SealedCredentials(rotating, SecretBox([NEW]))

        def opens_with_new_key_alone() -> bool:
            only_new.reopened(cid, Agent(llm=LLM(model="openai/none")))
            try:
                only_new.check(cid)
            except ConflictError:
                return False
            return True

        wait_until(opens_with_new_key_alone, what="the re-seal at start-up")
    assert (tmp_path / "conversations" / cid.hex / SEALED_FILE).exists()


def test_create_app_refuses_an_unusable_key_file_naming_it(tmp_path: Path) -> None:
    (tmp_path / KEY_FILE_NAME).write_text("too-short\n")

    with pytest.raises(ServerConfigError, match=KEY_FILE_NAME):
        create_app(_config(tmp_path))


def test_a_goal_that_does_not_start_puts_the_kept_judge_back(tmp_path: Path) -> None:
    config = _config(tmp_path, OH_SECRET_KEY=NEW)
    store = SealedCredentials.from_config(config)
    cid = uuid.uuid4()
    store.new_conversation(cid, Agent(llm=LLM(model="openai/none")))
    (tmp_path / "conversations" / cid.hex).mkdir(parents=True)
    store.created(cid)
    first = LLM(model="openai/first", api_key=SecretStr("sk-1"))
    second = LLM(model="openai/second", api_key=SecretStr("sk-2"))
    pool = BlockingPool(2)

    async def start(requested: LLM, *, fails: bool) -> None:
        async with goal_judge(store, pool, cid, requested) as judge:
            assert judge is not None and judge.model == requested.model
            if fails:
                raise ConflictError("A goal is already running")

    try:
        asyncio.run(start(first, fails=False))
        with pytest.raises(ConflictError):
            asyncio.run(start(second, fails=True))
    finally:
        pool.shutdown()

    kept = store.judge(cid, None, resume=True).llm
    assert kept is not None and kept.model == "openai/first"
