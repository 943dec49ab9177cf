"""SettingsStore: merged diffs, secrets sealed apart, restart and rotation, refused writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.agent_server.errors import ConflictError, InvalidRequestError
from openhands.agent_server.services.sealing import SecretBox
from openhands.agent_server.services.settings_store import (
    SETTINGS_FILE,
    SettingsStore,
    deep_merge,
)
from openhands.sdk import LLM
from openhands.sdk.errors import StorageError
from openhands.sdk.settings import SettingsUpdateRequest
from pydantic import SecretStr

OLD = "old-settings-key-" + "o" * 40
NEW = "new-settings-key-" + "n" * 40
LLM_KEY = "sk-settings-5e1f"
MCP_TOKEN = "ghp-settings-77aa"


def _store(folder: Path, *keys: str, max_bytes: int = 1_000_000) -> SettingsStore:
    store = SettingsStore(folder, SecretBox(list(keys or (OLD,))), max_bytes=max_bytes)
    store.load()
    return store


def _patch(store: SettingsStore, **fields: object) -> None:
    store.update(SettingsUpdateRequest.model_validate(fields))


def _with_llm(folder: Path, *keys: str) -> SettingsStore:
    store = _store(folder, *keys)
    _patch(
        store,
        agent_settings_diff={
            "llm": {"model": "openai/stored", "api_key": LLM_KEY, "base_url": "http://h/v1"},
            "mcp_config": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": MCP_TOKEN}}},
        },
    )
    return store


def test_deep_merge_merges_objects_replaces_lists_and_null_below_the_top_removes() -> None:
    base = {"llm": {"model": "a", "api_key": "k"}, "tools": [1, 2], "keep": 1}
    diff = {"llm": {"api_key": None, "base_url": "u"}, "tools": [3], "top": None}

    assert deep_merge(base, diff) == {
        "llm": {"model": "a", "base_url": "u"},
        "tools": [3],
        "keep": 1,
        "top": None,
    }


def test_the_answer_says_a_key_is_set_without_holding_it(tmp_path: Path) -> None:
    store = _with_llm(tmp_path)

    answer = store.response()

    assert answer.llm_api_key_is_set is True
    assert answer.agent_settings["llm"]["api_key"] is None
    assert answer.agent_settings["llm"]["model"] == "openai/stored"
    assert LLM_KEY not in answer.model_dump_json() and MCP_TOKEN not in answer.model_dump_json()


def test_the_file_shows_the_settings_but_never_a_secret(tmp_path: Path) -> None:
    _with_llm(tmp_path)

    text = (tmp_path / SETTINGS_FILE).read_text()

    assert "openai/stored" in text and "gh-mcp" in text
    assert LLM_KEY not in text and MCP_TOKEN not in text


def test_a_restarted_store_has_the_settings_and_their_secrets(tmp_path: Path) -> None:
    _with_llm(tmp_path)

    again = _store(tmp_path)

    llm = again.llm()
    assert llm is not None and llm.api_key is not None
    assert llm.api_key.get_secret_value() == LLM_KEY
    assert again.mcp_config()["gh"].env == {"GITHUB_TOKEN": SecretStr(MCP_TOKEN)}


def test_a_diff_merges_into_what_is_stored_and_keeps_the_key(tmp_path: Path) -> None:
    store = _with_llm(tmp_path)

    _patch(store, agent_settings_diff={"llm": {"temperature": 0.5}}, misc_settings_diff={"a": 1})

    llm = store.llm()
    assert llm is not None and llm.temperature == 0.5 and llm.model == "openai/stored"
    assert llm.api_key is not None and llm.api_key.get_secret_value() == LLM_KEY
    assert store.response().misc_settings == {"a": 1}


def test_a_null_key_in_a_diff_forgets_the_stored_key(tmp_path: Path) -> None:
    store = _with_llm(tmp_path)

    _patch(store, agent_settings_diff={"llm": {"api_key": None}})

    assert store.response().llm_api_key_is_set is False
    assert LLM_KEY not in (tmp_path / SETTINGS_FILE).read_text()


def test_a_bad_value_names_its_field_and_changes_nothing(tmp_path: Path) -> None:
    store = _with_llm(tmp_path)
    before = (tmp_path / SETTINGS_FILE).read_text()

    with pytest.raises(InvalidRequestError) as caught:
        _patch(store, agent_settings_diff={"llm": {"temperature": "hot"}})

    assert caught.value.loc == ("body", "agent_settings_diff", "llm", "temperature")
    assert (tmp_path / SETTINGS_FILE).read_text() == before
    llm = store.llm()
    assert llm is not None and llm.temperature == 0.0


def test_settings_over_the_size_limit_are_refused_naming_the_setting(tmp_path: Path) -> None:
    store = _store(tmp_path, max_bytes=200)

    with pytest.raises(InvalidRequestError, match="OH_MAX_SETTINGS_BYTES"):
        _patch(store, misc_settings_diff={"notes": "x" * 500})

    assert not (tmp_path / SETTINGS_FILE).exists()


def test_a_refused_write_leaves_the_old_settings_in_force(tmp_path: Path) -> None:
    folder = tmp_path / "settings"
    folder.mkdir()
    store = _with_llm(folder)
    (folder / SETTINGS_FILE).unlink()
    folder.rmdir()
    folder.write_text("not a folder any more")  # every write in it now fails

    with pytest.raises(StorageError):
        _patch(store, agent_settings_diff={"llm": {"model": "openai/other"}})

    llm = store.llm()
    assert llm is not None and llm.model == "openai/stored"


def test_an_active_profile_replaces_the_llm_whole(tmp_path: Path) -> None:
    store = _with_llm(tmp_path)
    profile = LLM(model="openai/profiled", api_key=SecretStr("sk-profile"))

    store.update(SettingsUpdateRequest(active_profile="fast"), profile_llm=profile)

    llm = store.llm()
    assert llm is not None and llm.model == "openai/profiled" and llm.base_url is None
    assert llm.api_key is not None and llm.api_key.get_secret_value() == "sk-profile"
    assert store.active_profile == "fast"


def test_rotation_reseals_with_the_new_key_so_the_old_one_can_go(tmp_path: Path) -> None:
    _with_llm(tmp_path, OLD)

    _store(tmp_path, NEW, OLD)  # a server started with the new key first
    only_new = _store(tmp_path, NEW)

    llm = only_new.llm()
    assert llm is not None and llm.api_key is not None
    assert llm.api_key.get_secret_value() == LLM_KEY


def test_settings_no_key_opens_are_refused_with_409_and_left_untouched(tmp_path: Path) -> None:
    _with_llm(tmp_path, OLD)
    before = (tmp_path / SETTINGS_FILE).read_text()
    other = _store(tmp_path, NEW)

    with pytest.raises(ConflictError, match="cannot be read"):
        other.response()
    with pytest.raises(ConflictError):
        _patch(other, misc_settings_diff={"a": 1})

    assert other.llm() is None
    assert (tmp_path / SETTINGS_FILE).read_text() == before


def test_a_damaged_file_is_reported_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / SETTINGS_FILE).write_text("{not json")

    store = _store(tmp_path)

    with pytest.raises(ConflictError, match="damaged"):
        store.response()
    assert (tmp_path / SETTINGS_FILE).read_text() == "{not json"
