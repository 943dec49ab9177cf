"""SecretBox and the server's key: sealing, rotation, the generated key file, bad keys."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

import pytest
from openhands.agent_server.config import ServerConfig, ServerConfigError
from openhands.agent_server.services.sealing import (
    KEY_FILE_NAME,
    SecretBox,
    UnsealError,
    key_file_path,
)

OLD = "old-key-" + "o" * 40
NEW = "new-key-" + "n" * 40


def _config(tmp_path: Path, **env: str) -> ServerConfig:
    return ServerConfig.from_env({"OH_CONVERSATIONS_PATH": str(tmp_path / "conv"), **env})


def test_a_sealed_value_opens_with_the_same_key_and_is_not_in_clear() -> None:
    box = SecretBox([NEW])

    token = box.seal(b"sk-very-secret")

    assert b"sk-very-secret" not in token.encode()
    assert box.open(token) == b"sk-very-secret"


def test_another_key_cannot_open_it() -> None:
    token = SecretBox([OLD]).seal(b"sk-very-secret")

    with pytest.raises(UnsealError, match="no key in keys opens it"):
        SecretBox([NEW]).open(token)


def test_an_altered_token_is_refused() -> None:
    box = SecretBox([NEW])
    token = box.seal(b"sk-very-secret")
    altered = token[:-6] + ("A" if token[-6] != "A" else "B") + token[-5:]

    with pytest.raises(UnsealError):
        box.open(altered)


def test_rotation_opens_old_tokens_and_reseals_them_with_the_first_key() -> None:
    token = SecretBox([OLD]).seal(b"sk-very-secret")
    rotating = SecretBox([NEW, OLD])

    assert rotating.open(token) == b"sk-very-secret"
    assert not rotating.is_current(token)
    resealed = rotating.reseal(token)

    assert rotating.is_current(resealed)
    assert SecretBox([NEW]).open(resealed) == b"sk-very-secret"


def test_the_key_comes_from_oh_secret_key_when_set(tmp_path: Path) -> None:
    token = SecretBox([NEW]).seal(b"x")

    box = SecretBox.from_config(_config(tmp_path, OH_SECRET_KEY=f"{NEW}, {OLD}"))

    assert (box.source, box.key_count) == ("OH_SECRET_KEY", 2)
    assert box.is_current(token)
    assert not (tmp_path / KEY_FILE_NAME).exists()


def test_without_oh_secret_key_a_0600_key_file_is_generated_beside_the_folder(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)

    box = SecretBox.from_config(config)

    path = tmp_path / KEY_FILE_NAME
    assert key_file_path(config.conversations_path) == path.resolve()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not (tmp_path / "conv").exists() or not any((tmp_path / "conv").iterdir())
    # The next start reads the same key back.
    assert SecretBox.from_config(config).open(box.seal(b"x")) == b"x"


def test_a_key_file_others_can_read_is_used_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / KEY_FILE_NAME
    path.write_text(NEW + "\n")
    path.chmod(0o644)

    with caplog.at_level(logging.WARNING):
        box = SecretBox.from_config(_config(tmp_path))

    assert box.open(SecretBox([NEW]).seal(b"x")) == b"x"
    assert "chmod 600" in caplog.text
    assert NEW not in caplog.text


def test_an_empty_key_file_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / KEY_FILE_NAME).write_text("\n")

    with pytest.raises(ServerConfigError, match=KEY_FILE_NAME):
        SecretBox.from_config(_config(tmp_path))


def test_a_short_oh_secret_key_is_refused_without_echoing_it() -> None:
    with pytest.raises(ServerConfigError, match="OH_SECRET_KEY: each key needs") as error:
        ServerConfig.from_env({"OH_SECRET_KEY": "hunter2-password"})

    assert "hunter2" not in str(error.value)


def test_a_short_key_in_the_key_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / KEY_FILE_NAME).write_text("short\n")

    with pytest.raises(ServerConfigError, match="fewer than 32 characters") as error:
        SecretBox.from_config(_config(tmp_path))

    assert KEY_FILE_NAME in str(error.value) and "short\n" not in str(error.value)
