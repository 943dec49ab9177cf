"""`SecretBox`: the server's key, and sealing bytes with it (Fernet, from `cryptography`).

The key is `OH_SECRET_KEY` or, when that is unset, the key file `.secret_key` beside (not
inside) the conversations folder, generated once with mode 0600. Either may list several
keys, newest first (comma separated in the variable, one a line in the file): everything is
sealed with the first, and opened with whichever key sealed it, so a key is rotated by
putting the new one in front and dropping the old one once everything is re-sealed.

Each key is a random value of at least `MIN_KEY_CHARS` characters; the Fernet key
(encryption and authentication) is derived from it with HKDF-SHA256. A key never appears in
a log line or an error message.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import hmac
import logging
import os
import secrets
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from openhands.agent_server.config import MIN_KEY_CHARS, ServerConfig, ServerConfigError
from openhands.sdk.errors import OpenHandsError
from openhands.sdk.io import fsync_dir, make_private_dir, remove_leftover_temp_files

if TYPE_CHECKING:
    from cryptography.fernet import Fernet, MultiFernet

logger = logging.getLogger(__name__)

KEY_FILE_NAME = ".secret_key"
"""The generated key's file, in the folder that holds the conversations folder."""

KEY_FILE_MODE = 0o600

_HKDF_SALT = b"openhands-agent-server"
_HKDF_INFO = b"sealed secrets v1"


class UnsealError(OpenHandsError, ValueError):
    """A sealed value cannot be opened: no current key sealed it, or it was altered."""


def key_file_path(conversations_path: Path) -> Path:
    """Where the generated key lives: `.secret_key` beside the conversations folder."""
    folder = conversations_path.resolve()
    if folder.parent == folder:
        raise ServerConfigError(
            f"OH_CONVERSATIONS_PATH: {folder} has no parent folder for the key file; set "
            "OH_SECRET_KEY or keep conversations in a subfolder."
        )
    return folder.parent / KEY_FILE_NAME


class SecretBox:
    """Seals and opens bytes with the server's keys (the first seals; any opens)."""

    def __init__(self, keys: Sequence[str], *, source: str = "keys") -> None:
        """`keys`: newest first, each at least MIN_KEY_CHARS characters; `source` names them."""
        from cryptography.fernet import MultiFernet

        if not keys:
            raise ServerConfigError(f"{source}: holds no key")
        for key in keys:
            if len(key) < MIN_KEY_CHARS:
                raise ServerConfigError(
                    f"{source}: a key has fewer than {MIN_KEY_CHARS} characters; use a random "
                    "value, e.g. from: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
                )
        self.source = source
        # Digests only: enough to recognise a key (`matches`), never to recover one.
        self._digests = [hashlib.sha256(key.encode()).digest() for key in keys]
        self._fernets: list[Fernet] = [_fernet(key) for key in keys]
        self._multi: MultiFernet = MultiFernet(self._fernets)

    @property
    def key_count(self) -> int:
        """How many keys are configured (more than one: a rotation is under way)."""
        return len(self._fernets)

    def matches(self, candidate: str | None) -> bool:
        """Whether `candidate` is one of the keys (constant time): the bootstrap key check."""
        if not candidate:
            return False
        given = hashlib.sha256(candidate.encode()).digest()
        found = False
        for digest in self._digests:  # every key, so the time taken says nothing
            found |= hmac.compare_digest(given, digest)
        return found

    @classmethod
    def from_config(cls, config: ServerConfig) -> SecretBox:
        """The box for `OH_SECRET_KEY`, or for the key file (generated on first use).

        Raises `ServerConfigError` naming the variable or the file when a key is unusable.
        """
        if config.secret_key is not None:
            keys = split_keys(config.secret_key.get_secret_value())
            return cls(keys, source="OH_SECRET_KEY")
        path = key_file_path(config.conversations_path)
        return cls(read_or_create_key_file(path), source=str(path))

    def seal(self, data: bytes) -> str:
        """`data` sealed with the first key (an ASCII token: encrypted and authenticated)."""
        return self._multi.encrypt(data).decode("ascii")

    def open(self, token: str) -> bytes:
        """What `token` seals; `UnsealError` if no configured key sealed it (or it was altered)."""
        from cryptography.fernet import InvalidToken

        try:
            return self._multi.decrypt(token.encode("ascii"))
        except (InvalidToken, UnicodeEncodeError):
            raise UnsealError(
                f"no key in {self.source} opens it (it was sealed with another key, or altered)"
            ) from None

    def is_current(self, token: str) -> bool:
        """True if the first key sealed `token` (nothing to re-seal)."""
        from cryptography.fernet import InvalidToken

        try:
            self._fernets[0].decrypt(token.encode("ascii"))
        except (InvalidToken, UnicodeEncodeError):
            return False
        return True

    def reseal(self, token: str) -> str:
        """`token` sealed again with the first key; `UnsealError` if no key opens it."""
        from cryptography.fernet import InvalidToken

        try:
            return self._multi.rotate(token.encode("ascii")).decode("ascii")
        except (InvalidToken, UnicodeEncodeError):
            raise UnsealError(f"no key in {self.source} opens it") from None


def split_keys(value: str) -> list[str]:
    """The keys listed in OH_SECRET_KEY (comma separated, newest first)."""
    return [key.strip() for key in value.split(",") if key.strip()]


def read_or_create_key_file(path: Path) -> list[str]:
    """The keys in the key file (one a line, newest first), generating it if it is missing.

    A new file gets one random key and mode 0600, and is created atomically: of two servers
    starting at once, both end up with the same key. A file others may read is used, with a
    warning saying how to fix it. A temp file a killed start left (it holds a key) is removed.
    """
    remove_leftover_temp_files(path.parent, [path.name])
    try:
        text = path.read_text()
    except FileNotFoundError:
        try:
            text = _create_key_file(path)
        except OSError as exc:
            raise ServerConfigError(
                f"the key file {path} cannot be created ({exc.strerror}); make its folder "
                "writable, or set OH_SECRET_KEY"
            ) from None
    except OSError as exc:
        raise ServerConfigError(
            f"the key file {path} cannot be read ({exc.strerror}); fix its permissions, or set "
            "OH_SECRET_KEY"
        ) from None
    else:
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            logger.warning(
                "The key file %s can be read by other users (mode %o): run chmod 600 on it.",
                path,
                mode,
            )
    keys = [line.strip() for line in text.splitlines() if line.strip()]
    if not keys:
        raise ServerConfigError(
            f"the key file {path} holds no key; restore it from a backup, or remove it to "
            "generate a new one (conversations sealed with the old key then lose their keys)"
        )
    return keys


def _create_key_file(path: Path) -> str:
    make_private_dir(path.parent)
    text = secrets.token_urlsafe(32) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            os.fchmod(fd, KEY_FILE_MODE)
            os.write(fd, text.encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)  # fails if another process created it meanwhile: use theirs
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise
            return path.read_text()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    with contextlib.suppress(OSError):
        fsync_dir(path.parent)
    logger.info("Generated the key that seals secrets at rest: %s (mode 600)", path)
    return text


def _fernet(key: str) -> Fernet:
    from cryptography.fernet import Fernet
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=_HKDF_SALT, info=_HKDF_INFO).derive(
        key.encode()
    )
    return Fernet(base64.urlsafe_b64encode(derived))
