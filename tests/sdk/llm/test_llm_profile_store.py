"""`LLMProfileStore`: named LLM settings saved as JSON files."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from openhands.sdk.llm import LLM, LLMProfileStore
from pydantic import SecretStr

SECRET = "sk-profile-secret-123"


def _llm() -> LLM:
    return LLM(model="openai/gpt-4o-mini", api_key=SecretStr(SECRET), top_p=0.4, usage_id="fast")


def test_a_saved_profile_loads_back_without_its_key_by_default(tmp_path: Path) -> None:
    store = LLMProfileStore(tmp_path)

    store.save("fast", _llm())
    loaded = store.load("fast")

    assert (loaded.model, loaded.top_p, loaded.usage_id) == ("openai/gpt-4o-mini", 0.4, "fast")
    assert loaded.api_key is None
    assert SECRET not in (tmp_path / "fast.json").read_text()


def test_secrets_are_saved_only_when_asked_and_only_for_the_owner(tmp_path: Path) -> None:
    store = LLMProfileStore(tmp_path)

    store.save("fast", _llm(), include_secrets=True)

    loaded = store.load("fast")
    assert loaded.api_key is not None and loaded.api_key.get_secret_value() == SECRET
    mode = stat.S_IMODE((tmp_path / "fast.json").stat().st_mode)
    assert mode & 0o077 == 0


def test_list_names_the_profile_files(tmp_path: Path) -> None:
    store = LLMProfileStore(tmp_path)
    store.save("b-profile", _llm())
    store.save("a-profile", _llm())

    assert store.list() == ["a-profile.json", "b-profile.json"]


def test_saving_again_replaces_the_profile(tmp_path: Path) -> None:
    store = LLMProfileStore(tmp_path)
    store.save("fast", _llm())

    store.save("fast", LLM(model="openai/gpt-4o"))

    assert store.load("fast").model == "openai/gpt-4o"
    assert json.loads((tmp_path / "fast.json").read_text())["model"] == "openai/gpt-4o"


@pytest.mark.parametrize("name", ["", "../escape", ".hidden", "a/b", "x" * 65])
def test_unsafe_names_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="profile name"):
        LLMProfileStore(tmp_path).save(name, _llm())


def test_a_missing_profile_names_the_ones_there_are(tmp_path: Path) -> None:
    store = LLMProfileStore(tmp_path)
    store.save("fast", _llm())

    with pytest.raises(FileNotFoundError, match="fast"):
        store.load("slow")


def test_a_corrupt_profile_is_a_value_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{not json")

    with pytest.raises(ValueError, match="broken"):
        LLMProfileStore(tmp_path).load("broken")


def test_delete_removes_a_profile_and_ignores_a_missing_one(tmp_path: Path) -> None:
    store = LLMProfileStore(tmp_path)
    store.save("fast", _llm())

    store.delete("fast")
    store.delete("fast")

    assert store.list() == []


def test_the_default_folder_is_in_the_home_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))

    store = LLMProfileStore()

    assert store.base_dir == tmp_path / ".openhands" / "profiles"
    assert store.base_dir.is_dir()
