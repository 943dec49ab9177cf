"""`SecretStore`: the server's named secrets (/api/settings/secrets), each value sealed.

`secrets.json` maps each name to its description and its sealed value. Values never leave
the server through the API: clients list names and descriptions, and conversations refer to
a secret by name (a `LookupSecret` whose URL is this server's `/api/settings/secrets/NAME`),
so the value is opened only when a command of the agent names it. Changes are written
atomically before they are answered; the store in memory changes only after the write.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Literal

from openhands.agent_server.errors import ConflictError, InvalidRequestError, NotFoundError
from openhands.agent_server.services.sealing import SecretBox, UnsealError
from openhands.agent_server.services.settings_folder import (
    SETTINGS_UNREADABLE,
    read_document,
    write_document,
)
from openhands.sdk.errors import StorageError
from openhands.sdk.settings import SecretItemResponse
from pydantic import BaseModel, ConfigDict, Field

logger = logging.getLogger(__name__)

SECRETS_FILE = "secrets.json"


class StoredSecret(BaseModel):
    """One entry of `secrets.json`."""

    model_config = ConfigDict(extra="forbid")

    description: str | None = None
    value: str = Field(description="The value, sealed.")


class SecretsFile(BaseModel):
    """`secrets.json`: every stored secret by name."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    secrets: dict[str, StoredSecret] = Field(default_factory=dict)


class SecretStore:
    """Named secrets: listed by name, their values opened only for the agent's commands."""

    def __init__(self, folder: Path, box: SecretBox, *, max_count: int, max_bytes: int) -> None:
        self._path = folder / SECRETS_FILE
        self._box = box
        self._max_count = max_count
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self._secrets: dict[str, StoredSecret] = {}
        self._problem: str | None = None

    def load(self) -> None:
        """Read `secrets.json` (blocking), re-sealing values an older key sealed."""
        try:
            stored = read_document(self._path, SecretsFile)
        except StorageError as exc:  # answered 409 with the reason until the disk is fixed
            stored = str(exc)
        if stored is None:
            return
        if isinstance(stored, str):
            self._problem = stored
            logger.warning("Stored secrets unreadable: %s", stored)
            return
        self._secrets = dict(stored.secrets)
        stale = {n: s for n, s in self._secrets.items() if not self._box.is_current(s.value)}
        if not stale:
            return
        resealed = dict(self._secrets)
        for name, secret in stale.items():
            try:
                resealed[name] = secret.model_copy(update={"value": self._box.reseal(secret.value)})
            except UnsealError:
                logger.warning("Stored secret %s cannot be opened with %s", name, self._box.source)
        try:
            write_document(self._path, SecretsFile(secrets=resealed))
            self._secrets = resealed
        except Exception as exc:  # still readable with the old key: retried next start
            logger.warning("Re-sealing %s failed: %s", self._path, exc)

    # -- reads ------------------------------------------------------------------------------

    def items(self) -> list[SecretItemResponse]:
        """Every stored secret's name and description, sorted by name."""
        self._check()
        return [
            SecretItemResponse(name=name, description=secret.description)
            for name, secret in sorted(self._secrets.items())
        ]

    def item(self, name: str) -> SecretItemResponse:
        """One stored secret's name and description; NotFoundError if there is none."""
        self._check()
        secret = self._secrets.get(name)
        if secret is None:
            raise NotFoundError(f"No stored secret is named {name!r}.")
        return SecretItemResponse(name=name, description=secret.description)

    def value(self, name: str) -> str | None:
        """The secret's value in clear for an agent's command, or None if there is none.

        Raises `UnsealError` if no configured key opens it.
        """
        secret = self._secrets.get(name)
        if secret is None or self._problem is not None:
            return None
        return self._box.open(secret.value).decode()

    # -- changes ----------------------------------------------------------------------------

    def put(self, name: str, value: str, description: str | None) -> SecretItemResponse:
        """Create or replace a secret (blocking); written before it is used."""
        size = len(value.encode())
        if size > self._max_bytes:
            raise InvalidRequestError(
                f"the value has {size} bytes, more than OH_MAX_SECRET_BYTES ({self._max_bytes})",
                ("body", "value"),
            )
        with self._lock:
            self._check()
            if name not in self._secrets and len(self._secrets) >= self._max_count:
                raise ConflictError(
                    f"The server holds {len(self._secrets)} secrets, the most OH_MAX_SECRETS "
                    "allows; delete one first, or raise that setting."
                )
            updated = dict(self._secrets)
            updated[name] = StoredSecret(
                description=description, value=self._box.seal(value.encode())
            )
            write_document(self._path, SecretsFile(secrets=updated))
            self._secrets = updated
        return SecretItemResponse(name=name, description=description)

    def delete(self, name: str) -> None:
        """Remove a secret (blocking); NotFoundError if there is none."""
        with self._lock:
            self._check()
            if name not in self._secrets:
                raise NotFoundError(f"No stored secret is named {name!r}.")
            updated = {n: s for n, s in self._secrets.items() if n != name}
            write_document(self._path, SecretsFile(secrets=updated))
            self._secrets = updated

    def _check(self) -> None:
        if self._problem is not None:
            raise ConflictError(
                f"The stored secrets cannot be read: {self._problem}.", code=SETTINGS_UNREADABLE
            )
