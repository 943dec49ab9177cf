"""ProfileStore: LLM profiles in the SDK's profile files, keys sealed, limits, rotation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openhands.agent_server.errors import ConflictError, NotFoundError
from openhands.agent_server.services.profile_store import (
    PROFILES_FOLDER,
    ConversationProfiles,
    ProfileStore,
)
from openhands.agent_server.services.sealing import SecretBox
from openhands.sdk import LLM
from pydantic import SecretStr

OLD = "old-profiles-key-" + "o" * 40
NEW = "new-profiles-key-" + "n" * 40
KEY = "sk-profile-90ab"


def _store(folder: Path, *keys: str, max_count: int = 5) -> ProfileStore:
    store = ProfileStore(folder, SecretBox(list(keys or (OLD,))), max_count=max_count)
    store.load()
    return store


def _llm(model: str = "openai/fast") -> LLM:
    return LLM(model=model, api_key=SecretStr(KEY), base_url="http://h/v1")


def test_a_saved_profile_keeps_its_key_sealed_in_its_file(tmp_path: Path) -> None:
    _store(tmp_path).save("fast", _llm(), include_secrets=True)

    stored = json.loads((tmp_path / PROFILES_FOLDER / "fast.json").read_text())

    assert stored["model"] == "openai/fast"
    assert stored["api_key"] and stored["api_key"] != KEY
    assert KEY not in (tmp_path / PROFILES_FOLDER / "fast.json").read_text()


def test_a_restarted_store_opens_the_key(tmp_path: Path) -> None:
    _store(tmp_path).save("fast", _llm(), include_secrets=True)

    profile = _store(tmp_path).get("fast")

    assert profile.api_key_set and profile.llm.api_key == SecretStr(KEY)
    assert profile.llm.base_url == "http://h/v1"


def test_the_detail_and_listing_never_hold_the_key(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save("fast", _llm(), include_secrets=True)

    detail = store.detail("fast")
    listing = store.infos()

    assert detail.config["api_key"] is None and detail.api_key_set
    assert [(p.name, p.model, p.api_key_set) for p in listing] == [("fast", "openai/fast", True)]
    assert KEY not in detail.model_dump_json() + "".join(p.model_dump_json() for p in listing)


def test_without_include_secrets_no_key_is_stored(tmp_path: Path) -> None:
    _store(tmp_path).save("fast", _llm(), include_secrets=False)

    assert not _store(tmp_path).get("fast").api_key_set


def test_an_unknown_profile_names_those_there_are(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save("fast", _llm(), include_secrets=True)

    with pytest.raises(NotFoundError, match="profiles: fast"):
        store.get("slow")


def test_the_count_limit_refuses_a_new_profile_not_a_replacement(tmp_path: Path) -> None:
    store = _store(tmp_path, max_count=1)
    store.save("fast", _llm(), include_secrets=True)

    with pytest.raises(ConflictError, match="OH_MAX_PROFILES"):
        store.save("slow", _llm(), include_secrets=True)
    store.save("fast", _llm("openai/faster"), include_secrets=True)
    assert store.get("fast").llm.model == "openai/faster"


def test_a_deleted_profile_is_gone_after_a_restart(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save("fast", _llm(), include_secrets=True)

    assert store.delete("fast") is True
    assert store.delete("fast") is False
    assert _store(tmp_path).names() == []


def test_rotation_reseals_so_the_old_key_can_be_dropped(tmp_path: Path) -> None:
    _store(tmp_path, OLD).save("fast", _llm(), include_secrets=True)

    _store(tmp_path, NEW, OLD)

    assert _store(tmp_path, NEW).get("fast").llm.api_key == SecretStr(KEY)


def test_a_key_no_configured_key_opens_leaves_the_profile_usable_without_it(
    tmp_path: Path,
) -> None:
    _store(tmp_path, OLD).save("fast", _llm(), include_secrets=True)

    profile = _store(tmp_path, NEW).get("fast")

    assert not profile.api_key_set and profile.problem is not None
    assert profile.llm.model == "openai/fast"


def test_conversations_load_a_profile_with_its_key_opened(tmp_path: Path) -> None:
    _store(tmp_path).save("oracle", _llm("openai/strong"), include_secrets=True)
    profiles = ConversationProfiles(_store(tmp_path))

    llm = profiles.load("oracle")

    assert llm.model == "openai/strong" and llm.api_key == SecretStr(KEY)


def test_conversations_asking_for_an_unknown_profile_learn_where_to_save_it(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    store.save("fast", _llm(), include_secrets=True)

    with pytest.raises(FileNotFoundError, match=r"profiles: fast.*POST /api/profiles/oracle"):
        ConversationProfiles(store).load("oracle")


def test_conversations_refuse_a_profile_whose_key_cannot_be_opened(tmp_path: Path) -> None:
    _store(tmp_path, OLD).save("oracle", _llm(), include_secrets=True)

    with pytest.raises(ValueError, match="save it again with its key"):
        ConversationProfiles(_store(tmp_path, NEW)).load("oracle")
