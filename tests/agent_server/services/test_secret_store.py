"""SecretStore: named secrets sealed at rest, listed without values, limits, rotation."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.agent_server.errors import ConflictError, InvalidRequestError, NotFoundError
from openhands.agent_server.services.sealing import SecretBox
from openhands.agent_server.services.secret_store import SECRETS_FILE, SecretStore

OLD = "old-secrets-key-" + "o" * 40
NEW = "new-secrets-key-" + "n" * 40
VALUE = "tok-3c9e1b77"


def _store(folder: Path, *keys: str, max_count: int = 10, max_bytes: int = 1000) -> SecretStore:
    store = SecretStore(
        folder, SecretBox(list(keys or (OLD,))), max_count=max_count, max_bytes=max_bytes
    )
    store.load()
    return store


def test_a_secret_is_listed_by_name_and_description_and_read_only_inside(tmp_path: Path) -> None:
    store = _store(tmp_path)

    store.put("PROJECT_TOKEN", VALUE, "for the deploy")

    assert [item.model_dump() for item in store.items()] == [
        {"name": "PROJECT_TOKEN", "description": "for the deploy"}
    ]
    assert store.value("PROJECT_TOKEN") == VALUE
    assert VALUE not in (tmp_path / SECRETS_FILE).read_text()


def test_secrets_survive_a_restart(tmp_path: Path) -> None:
    _store(tmp_path).put("A", VALUE, None)

    assert _store(tmp_path).value("A") == VALUE


def test_a_put_replaces_and_a_delete_removes(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.put("A", "one", None)
    store.put("A", "two", "new")

    assert store.value("A") == "two" and store.item("A").description == "new"
    store.delete("A")
    assert store.value("A") is None
    with pytest.raises(NotFoundError):
        store.item("A")
    with pytest.raises(NotFoundError):
        store.delete("A")
    assert _store(tmp_path).items() == []


def test_the_count_limit_refuses_a_new_name_but_not_a_replacement(tmp_path: Path) -> None:
    store = _store(tmp_path, max_count=1)
    store.put("A", "1", None)

    with pytest.raises(ConflictError, match="OH_MAX_SECRETS"):
        store.put("B", "2", None)
    store.put("A", "3", None)
    assert store.value("A") == "3"


def test_a_value_over_the_size_limit_names_the_field(tmp_path: Path) -> None:
    store = _store(tmp_path, max_bytes=4)

    with pytest.raises(InvalidRequestError) as caught:
        store.put("A", "12345", None)

    assert caught.value.loc == ("body", "value")
    assert "OH_MAX_SECRET_BYTES" in caught.value.message


def test_rotation_reseals_so_the_old_key_can_be_dropped(tmp_path: Path) -> None:
    _store(tmp_path, OLD).put("A", VALUE, None)

    _store(tmp_path, NEW, OLD)

    assert _store(tmp_path, NEW).value("A") == VALUE
