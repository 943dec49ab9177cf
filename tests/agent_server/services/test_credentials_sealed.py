"""SealedCredentials: what a client sent survives a restart, sealed, and a lost key is explained.

Each "restart" is a new store on the same folder; the agent a reopen starts from is the one
read back from its JSON dump, as the server reads it from base_state.json.
"""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import pytest
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.services.credentials import SealedKeysError
from openhands.agent_server.services.sealed_credentials import (
    SEALED_FILE,
    SealedCredentials,
    agent_secrets,
)
from openhands.agent_server.services.sealing import SecretBox
from openhands.sdk import LLM, Agent
from openhands.sdk.agent import AgentBase
from pydantic import SecretStr

KEY = "server-key-" + "a" * 40
AGENT_URL = "http://127.0.0.1:9/v1"
SERVER_LLM = {"LLM_API_KEY": "sk-server-default-99", "LLM_BASE_URL": AGENT_URL}
"""The server's LLM_API_KEY, for the agent's endpoint (it is only given there)."""
OTHER_KEY = "other-key-" + "b" * 40
AGENT_KEY = "sk-agent-7f3e9a"
JUDGE_KEY = "sk-judge-41c2d8"
MCP_TOKEN = "ghp-mcp-0d5b6e"


def _store(root: Path, *keys: str, **env: str) -> SealedCredentials:
    config = ServerConfig.from_env({"OH_CONVERSATIONS_PATH": str(root), **env})
    return SealedCredentials(config, SecretBox(list(keys or (KEY,)), source="OH_SECRET_KEY"))


def _agent(api_key: str | None = AGENT_KEY) -> Agent:
    return Agent.model_validate(
        {
            "llm": {
                "model": "openai/agent",
                "base_url": AGENT_URL,
                "api_key": api_key,
            },
            "mcp_config": {
                "gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": MCP_TOKEN, "MODE": "ro"}}
            },
        }
    )


def _from_disk(agent: AgentBase) -> AgentBase:
    """The agent as the server reads it back: its JSON dump, so without secrets."""
    return Agent.model_validate_json(agent.model_dump_json())


def _create(root: Path, store: SealedCredentials, agent: AgentBase) -> uuid.UUID:
    cid = uuid.uuid4()
    store.new_conversation(cid, agent)
    (root / cid.hex).mkdir(parents=True)
    store.created(cid)
    return cid


def _secret(value: SecretStr | None) -> str | None:
    return None if value is None else value.get_secret_value()


def _files_text(root: Path) -> str:
    return "".join(p.read_text() for p in root.rglob("*") if p.is_file())


def test_the_secrets_of_an_agent_are_the_values_its_dump_hides() -> None:
    found = {
        tuple(item.path): item.value.get_secret_value() for item in agent_secrets(_agent()).values
    }

    assert found == {
        ("llm", "api_key"): AGENT_KEY,
        ("mcp_config", "gh", "env", "GITHUB_TOKEN"): MCP_TOKEN,
        ("mcp_config", "gh", "env", "MODE"): "ro",
    }


def test_an_agents_keys_survive_a_restart_sealed(tmp_path: Path) -> None:
    agent = _agent()
    cid = _create(tmp_path, _store(tmp_path), agent)

    reopened = _store(tmp_path).reopened(cid, _from_disk(agent))

    assert _secret(reopened.llm.api_key) == AGENT_KEY
    assert _secret(reopened.mcp_config["gh"].env["GITHUB_TOKEN"]) == MCP_TOKEN  # type: ignore[index]
    assert reopened.llm.base_url == agent.llm.base_url
    assert (tmp_path / cid.hex / SEALED_FILE).exists()
    for secret in (AGENT_KEY, MCP_TOKEN, KEY):
        assert secret not in _files_text(tmp_path)


def test_the_servers_own_llm_key_is_never_sealed(tmp_path: Path) -> None:
    env = {"LLM_API_KEY": "sk-server-default-99"}
    agent = Agent(llm=LLM(model="openai/agent"))
    store = _store(tmp_path, **env)
    cid = _create(tmp_path, store, agent)

    assert _secret(agent.llm.api_key) == "sk-server-default-99"  # filled in for this run
    assert not (tmp_path / cid.hex / SEALED_FILE).exists()
    reopened = _store(tmp_path, **env).reopened(cid, _from_disk(agent))
    assert _secret(reopened.llm.api_key) == "sk-server-default-99"


def test_a_conversation_without_a_sealed_file_reopens_with_the_servers_defaults(
    tmp_path: Path,
) -> None:
    cid = uuid.uuid4()
    (tmp_path / cid.hex).mkdir()
    store = _store(tmp_path, **SERVER_LLM)

    reopened = store.reopened(cid, _from_disk(_agent(api_key=None)))

    assert _secret(reopened.llm.api_key) == "sk-server-default-99"
    store.check(cid)  # nothing sealed, nothing to refuse


def test_with_another_key_the_conversation_opens_but_runs_are_refused_saying_what_to_do(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    agent = _agent()
    cid = _create(tmp_path, _store(tmp_path), agent)
    store = _store(tmp_path, OTHER_KEY, OH_SECRET_KEY=OTHER_KEY)

    with caplog.at_level(logging.WARNING):
        reopened = store.reopened(cid, _from_disk(agent))

    assert reopened.llm.api_key is None
    with pytest.raises(SealedKeysError) as refused:
        store.check(cid)
    message = refused.value.message
    assert "cannot be opened" in message and "OH_SECRET_KEY" in message
    assert "LLM_API_KEY" in message
    assert refused.value.status_code == 409
    assert OTHER_KEY not in caplog.text and AGENT_KEY not in caplog.text


def test_with_another_key_and_llm_api_key_the_agent_runs_on_the_servers_key(
    tmp_path: Path,
) -> None:
    agent = _agent()
    cid = _create(tmp_path, _store(tmp_path), agent)
    store = _store(tmp_path, OTHER_KEY, **SERVER_LLM)

    reopened = store.reopened(cid, _from_disk(agent))

    assert _secret(reopened.llm.api_key) == "sk-server-default-99"
    store.check(cid)


def test_a_damaged_sealed_file_is_reported_like_an_unreadable_one(tmp_path: Path) -> None:
    agent = _agent()
    cid = _create(tmp_path, _store(tmp_path), agent)
    (tmp_path / cid.hex / SEALED_FILE).write_text("{not json")
    store = _store(tmp_path)

    store.reopened(cid, _from_disk(agent))

    with pytest.raises(SealedKeysError, match="damaged"):
        store.check(cid)


def test_the_goals_judge_survives_a_restart_with_its_key(tmp_path: Path) -> None:
    store = _store(tmp_path)
    cid = _create(tmp_path, store, _agent())
    requested = LLM(
        model="openai/judge", base_url="http://127.0.0.1:9/v1", api_key=SecretStr(JUDGE_KEY)
    )
    chosen = store.judge(cid, requested).llm
    assert chosen is not None and chosen.usage_id == "goal-judge"

    restarted = _store(tmp_path)
    restarted.reopened(cid, _from_disk(_agent()))
    judge = restarted.judge(cid, None, resume=True).llm

    assert judge is not None
    assert (judge.model, judge.base_url, judge.usage_id) == (
        "openai/judge",
        "http://127.0.0.1:9/v1",
        "goal-judge",
    )
    assert _secret(judge.api_key) == JUDGE_KEY
    assert JUDGE_KEY not in _files_text(tmp_path)


def test_resume_without_a_judge_reuses_the_same_judge_object(tmp_path: Path) -> None:
    store = _store(tmp_path)
    cid = _create(tmp_path, store, _agent())
    chosen = store.judge(cid, LLM(model="openai/judge", api_key=SecretStr(JUDGE_KEY))).llm

    assert store.judge(cid, None, resume=True).llm is chosen  # its usage keeps adding up


def test_a_goal_started_with_the_default_judge_drops_the_kept_one(tmp_path: Path) -> None:
    store = _store(tmp_path)
    cid = _create(tmp_path, store, _agent())
    store.judge(cid, LLM(model="openai/judge", api_key=SecretStr(JUDGE_KEY)))

    assert store.judge(cid, None).llm is None  # a new goal, with the default judge

    restarted = _store(tmp_path)
    restarted.reopened(cid, _from_disk(_agent()))
    assert restarted.judge(cid, None, resume=True).llm is None


def test_a_refused_start_puts_the_previous_judge_back(tmp_path: Path) -> None:
    store = _store(tmp_path)
    cid = _create(tmp_path, store, _agent())
    store.judge(cid, LLM(model="openai/first", api_key=SecretStr(JUDGE_KEY)))
    refused = store.judge(cid, LLM(model="openai/second", api_key=SecretStr("sk-2")))

    assert refused.restore is not None
    refused.restore()

    restarted = _store(tmp_path)
    restarted.reopened(cid, _from_disk(_agent()))
    judge = restarted.judge(cid, None, resume=True).llm
    assert judge is not None and judge.model == "openai/first"


def test_putting_back_does_nothing_once_a_later_start_chose_another_judge(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    cid = _create(tmp_path, store, _agent())
    refused = store.judge(cid, LLM(model="openai/refused", api_key=SecretStr("sk-1")))
    store.judge(cid, LLM(model="openai/winner", api_key=SecretStr("sk-2")))

    assert refused.restore is not None
    refused.restore()

    judge = store.judge(cid, None, resume=True).llm
    assert judge is not None and judge.model == "openai/winner"


def test_a_judge_sealed_with_a_lost_key_asks_for_judge_llm_on_resume(tmp_path: Path) -> None:
    store = _store(tmp_path)
    cid = _create(tmp_path, store, _agent())
    store.judge(cid, LLM(model="openai/judge", api_key=SecretStr(JUDGE_KEY)))
    restarted = _store(tmp_path, OTHER_KEY, **SERVER_LLM)
    restarted.reopened(cid, _from_disk(_agent()))

    with pytest.raises(SealedKeysError, match="judge_llm"):
        restarted.judge(cid, None, resume=True)
    sent = restarted.judge(
        cid, LLM(model="openai/judge", api_key=SecretStr(JUDGE_KEY)), resume=True
    )
    assert sent.llm is not None and _secret(sent.llm.api_key) == JUDGE_KEY


def test_reopening_with_a_new_first_key_reseals_with_it(tmp_path: Path) -> None:
    agent = _agent()
    cid = _create(tmp_path, _store(tmp_path, KEY), agent)

    _store(tmp_path, OTHER_KEY, KEY).reopened(cid, _from_disk(agent))

    only_new = _store(tmp_path, OTHER_KEY)
    reopened = only_new.reopened(cid, _from_disk(agent))
    assert _secret(reopened.llm.api_key) == AGENT_KEY
    only_new.check(cid)


def test_reseal_all_reseals_every_conversation_an_older_key_sealed(tmp_path: Path) -> None:
    old = _store(tmp_path, KEY)
    ids = [_create(tmp_path, old, _agent()) for _ in range(3)]
    lost = _create(tmp_path, _store(tmp_path, "lost-key-" + "c" * 40), _agent())

    assert _store(tmp_path, OTHER_KEY, KEY).reseal_all() == (3, 1)

    only_new = _store(tmp_path, OTHER_KEY)
    for cid in ids:
        assert _secret(only_new.reopened(cid, _from_disk(_agent())).llm.api_key) == AGENT_KEY
    only_new.reopened(lost, _from_disk(_agent()))
    with pytest.raises(SealedKeysError):
        only_new.check(lost)


def test_forget_drops_what_is_held_for_a_conversation(tmp_path: Path) -> None:
    agent = _agent()
    cid = _create(tmp_path, _store(tmp_path), agent)
    store = _store(tmp_path, OTHER_KEY)
    store.reopened(cid, _from_disk(agent))

    store.forget(cid)

    store.check(cid)  # nothing held any more, so nothing to refuse
