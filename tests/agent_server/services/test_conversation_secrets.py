"""ConversationSecrets: lookups of this server's secrets read the store; sources are sealed."""

from __future__ import annotations

from pathlib import Path

from openhands.agent_server.config import ServerConfig
from openhands.agent_server.services.conversation_secrets import (
    SOURCES_FILE,
    ConversationSecrets,
    StoredSecretSource,
)
from openhands.agent_server.services.sealing import SecretBox
from openhands.agent_server.services.secret_store import SecretStore
from openhands.sdk.secret import LookupSecret, StaticSecret
from pydantic import SecretStr

KEY = "conversation-secrets-key-" + "k" * 40
VALUE = "tok-stored-51d0"


def _secrets(root: Path, **env: str) -> tuple[ConversationSecrets, SecretStore]:
    config = ServerConfig.from_env(
        {"OH_CONVERSATIONS_PATH": str(root / "c"), "OH_PORT": "8123", **env}
    )
    box = SecretBox([KEY])
    store = SecretStore(root, box, max_count=10, max_bytes=1000)
    store.load()
    store.put("PROJECT_TOKEN", VALUE, None)
    return ConversationSecrets(config, box, store), store


def test_a_lookup_of_this_servers_secret_reads_the_store_when_used(tmp_path: Path) -> None:
    secrets, store = _secrets(tmp_path)
    lookup = LookupSecret(url="http://127.0.0.1:8123/api/settings/secrets/PROJECT_TOKEN")

    resolved = secrets.resolve({"TOKEN": lookup})["TOKEN"]

    assert isinstance(resolved, StoredSecretSource) and resolved.get_value() == VALUE
    store.put("PROJECT_TOKEN", "rotated", None)
    assert resolved.get_value() == "rotated"  # read when used, not when registered
    store.delete("PROJECT_TOKEN")
    assert resolved.get_value() is None


def test_lookups_elsewhere_stay_http_lookups(tmp_path: Path) -> None:
    secrets, _ = _secrets(tmp_path)
    other_port = LookupSecret(url="http://127.0.0.1:9999/api/settings/secrets/PROJECT_TOKEN")
    other_host = LookupSecret(url="http://vault.example:8123/api/settings/secrets/PROJECT_TOKEN")
    other_path = LookupSecret(url="http://127.0.0.1:8123/api/other/PROJECT_TOKEN")

    resolved = secrets.resolve({"A": other_port, "B": other_host, "C": other_path})

    assert resolved == {"A": other_port, "B": other_host, "C": other_path}


def test_a_lookup_carrying_a_session_key_of_this_server_reads_the_store(tmp_path: Path) -> None:
    secrets, _ = _secrets(tmp_path, OH_SESSION_API_KEYS="ours")
    url = "http://10.0.0.7:31000/api/settings/secrets/PROJECT_TOKEN"  # behind a proxy
    ours = LookupSecret(url=url, headers={"x-session-api-key": SecretStr("ours")})
    theirs = LookupSecret(url=url, headers={"X-Session-API-Key": SecretStr("theirs")})

    resolved = secrets.resolve({"A": ours, "B": theirs})

    assert resolved["A"].get_value() == VALUE and resolved["B"] is theirs


def test_the_public_url_names_this_server_too(tmp_path: Path) -> None:
    secrets, _ = _secrets(tmp_path, OH_PUBLIC_URL="https://agents.example")
    lookup = LookupSecret(url="https://agents.example/api/settings/secrets/PROJECT_TOKEN")

    resolved = secrets.resolve({"T": lookup})["T"]

    assert resolved.get_value() == VALUE


def test_sources_are_sealed_in_the_folder_and_restored_resolved(tmp_path: Path) -> None:
    secrets, _ = _secrets(tmp_path)
    folder = tmp_path / "conversation"
    folder.mkdir()
    sources = {
        "PLAIN": StaticSecret(value=SecretStr("plain-value-88")),
        "TOKEN": LookupSecret(
            url="http://localhost:8123/api/settings/secrets/PROJECT_TOKEN",
            headers={"X-Session-API-Key": SecretStr("session-key-31")},
        ),
    }

    secrets.keep(folder, sources)
    restored = secrets.restore(folder)

    text = (folder / SOURCES_FILE).read_text()
    assert "plain-value-88" not in text and "session-key-31" not in text
    assert restored["PLAIN"].get_value() == "plain-value-88"
    assert restored["TOKEN"].get_value() == VALUE


def test_a_fork_gets_a_copy_and_a_folder_without_sources_restores_none(tmp_path: Path) -> None:
    secrets, _ = _secrets(tmp_path)
    source, fork, empty = tmp_path / "a", tmp_path / "b", tmp_path / "e"
    for folder in (source, fork, empty):
        folder.mkdir()
    secrets.keep(source, {"PLAIN": StaticSecret(value=SecretStr("v"))})

    secrets.copy(source, fork)

    assert secrets.restore(fork)["PLAIN"].get_value() == "v"
    assert secrets.restore(empty) == {}
