"""`ProviderConnections`: API keys (and base URLs) that LLM profiles share by id
(/api/llm/provider-connections), in `provider_connections.json` with each key sealed.

A profile (or the stored settings' LLM) naming a connection in `provider_connection_id` and
carrying no key of its own gets the connection's key and base URL when it is used
(`StoredLLMDefaults.fill_llm`), so a rotated key applies to every linked profile at once. A
connection still named by a profile or the settings cannot be deleted (409). Changes are
written before they are answered; a damaged file is never overwritten (409 until fixed).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from openhands.agent_server.errors import ConflictError, NotFoundError
from openhands.agent_server.services.sealing import SecretBox, UnsealError
from openhands.agent_server.services.settings_folder import (
    SETTINGS_UNREADABLE,
    ensure_folder,
    read_document,
    write_document,
)
from openhands.sdk.wire.provider_connections import (
    ProviderConnectionCreateRequest,
    ProviderConnectionResponse,
    ProviderConnectionUpdateRequest,
)
from pydantic import BaseModel, ConfigDict, Field, SecretStr

CONNECTIONS_FILE = "provider_connections.json"


class StoredConnection(BaseModel):
    """One connection as stored: its key sealed."""

    model_config = ConfigDict(extra="forbid")

    id: str
    display_name: str
    provider: str
    base_url: str | None = None
    api_key: str = Field(description="The key, sealed.")
    created_at: int
    updated_at: int


class ConnectionsFile(BaseModel):
    """`provider_connections.json`."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    connections: list[StoredConnection] = Field(default_factory=list)


class ProviderConnections:
    """The provider connections of one server: read once, changed by atomic writes."""

    def __init__(self, folder: Path, box: SecretBox, *, max_count: int) -> None:
        self._folder = folder
        self._path = folder / CONNECTIONS_FILE
        self._box = box
        self._max_count = max_count
        self._lock = threading.Lock()
        self._connections: dict[str, StoredConnection] = {}
        self._problem: str | None = None

    @staticmethod
    def exists(folder: Path) -> bool:
        """Whether `folder` holds connections (a server without any never loads this store)."""
        return (folder / CONNECTIONS_FILE).exists()

    def load(self) -> ProviderConnections:
        """Read the file (blocking); a damaged one is noted, never overwritten."""
        stored = read_document(self._path, ConnectionsFile)
        if isinstance(stored, str):
            self._problem = stored
        elif stored is not None:
            self._connections = {c.id: c for c in stored.connections}
        return self

    # -- reads ------------------------------------------------------------------------------

    def answers(self) -> list[ProviderConnectionResponse]:
        """Every connection, oldest first, without keys."""
        self._check()
        return [self._answer(c) for c in self._connections.values()]

    def key_for(self, connection_id: str) -> tuple[SecretStr, str | None] | None:
        """The connection's key and base URL, or None (unknown, or no key opens it)."""
        connection = self._connections.get(connection_id)
        if connection is None:
            return None
        try:
            key = self._box.open(connection.api_key).decode()
        except UnsealError:
            return None
        return SecretStr(key), connection.base_url

    # -- changes (blocking) -----------------------------------------------------------------

    def create(self, request: ProviderConnectionCreateRequest) -> ProviderConnectionResponse:
        """Store a new connection; 409 past OH_MAX_PROVIDER_CONNECTIONS."""
        now = int(time.time())
        connection = StoredConnection(
            id=uuid.uuid4().hex,
            display_name=request.display_name,
            provider=request.provider,
            base_url=request.base_url,
            api_key=self._box.seal(request.api_key.get_secret_value().encode()),
            created_at=now,
            updated_at=now,
        )
        with self._lock:
            self._check()
            if len(self._connections) >= self._max_count:
                raise ConflictError(
                    f"The server holds {len(self._connections)} provider connections, the most "
                    "OH_MAX_PROVIDER_CONNECTIONS allows; delete one before adding another."
                )
            self._write({**self._connections, connection.id: connection})
        return self._answer(connection)

    def update(
        self, connection_id: str, request: ProviderConnectionUpdateRequest
    ) -> ProviderConnectionResponse:
        """Change the fields the request sets; 404 for an unknown id."""
        fields = request.model_fields_set
        with self._lock:
            self._check()
            current = self._get(connection_id)
            changes: dict[str, object] = {"updated_at": int(time.time())}
            for name in ("display_name", "provider", "base_url"):
                if name in fields:
                    changes[name] = getattr(request, name)
            if request.api_key is not None:
                changes["api_key"] = self._box.seal(request.api_key.get_secret_value().encode())
            updated = current.model_copy(update=changes)
            self._write({**self._connections, connection_id: updated})
        return self._answer(updated)

    def delete(self, connection_id: str, users: Iterable[str]) -> ProviderConnectionResponse:
        """Delete a connection no one names (`users`: what names it); 404 unknown, 409 used."""
        names = sorted(users)
        with self._lock:
            self._check()
            current = self._get(connection_id)
            if names:
                raise ConflictError(
                    f"Provider connection {connection_id!r} cannot be deleted while "
                    f"{', '.join(names)} use it; change those first."
                )
            self._write({k: v for k, v in self._connections.items() if k != connection_id})
        return self._answer(current).model_copy(update={"api_key_set": False})

    # -- helpers ----------------------------------------------------------------------------

    def _get(self, connection_id: str) -> StoredConnection:
        connection = self._connections.get(connection_id)
        if connection is None:
            raise NotFoundError(f"Provider connection {connection_id!r} not found.")
        return connection

    def _write(self, connections: dict[str, StoredConnection]) -> None:
        ensure_folder(self._folder)
        write_document(self._path, ConnectionsFile(connections=list(connections.values())))
        self._connections = connections

    def _answer(self, connection: StoredConnection) -> ProviderConnectionResponse:
        return ProviderConnectionResponse(
            id=connection.id,
            display_name=connection.display_name,
            provider=connection.provider,
            base_url=connection.base_url,
            created_at=connection.created_at,
            updated_at=connection.updated_at,
            api_key_set=self.key_for(connection.id) is not None,
        )

    def _check(self) -> None:
        if self._problem is not None:
            raise ConflictError(
                f"The provider connections cannot be read: {self._problem}.",
                code=SETTINGS_UNREADABLE,
            )
