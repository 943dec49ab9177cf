"""`ConversationSecrets`: the secrets a conversation was created with, for its agent's commands.

A StartConversationRequest may carry `secrets` (`{NAME: value | StaticSecret | LookupSecret}`).
They are registered with the conversation's `SecretRegistry`, so a terminal command naming
`$NAME` gets the value as an environment variable and its output shows `<secret-hidden>`
instead; they never enter the event log or the LLM's context.

A `LookupSecret` of this server's own `/api/settings/secrets/NAME` (what
`RemoteWorkspace.get_secrets()` builds) is read from the `SecretStore` directly, when a
command names it, since the server never answers a stored value over HTTP. "This server":
the lookup carries one of its session keys (so a restart on another port or behind a proxy
still finds it), or its URL names the server's host and port or OH_PUBLIC_URL. Any other
URL is fetched when needed, as the SDK does.

The sources as sent (values and lookup headers included) are sealed in the conversation's
folder (`secret_sources.sealed`), so a reopened or forked conversation has them again.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from openhands.agent_server.auth import API_KEY_HEADER, key_matches
from openhands.agent_server.config import ServerConfig, is_loopback, normalize_host
from openhands.agent_server.services.sealing import SecretBox, UnsealError
from openhands.agent_server.services.secret_store import SecretStore
from openhands.sdk.errors import storage_error
from openhands.sdk.io import write_atomic
from openhands.sdk.secret import LookupSecret, SecretSource, SecretSpec
from pydantic import PrivateAttr, TypeAdapter, ValidationError

logger = logging.getLogger(__name__)

SOURCES_FILE = "secret_sources.sealed"
"""The file in a conversation's folder holding its secret sources, sealed."""

STORED_SECRET_PATH = re.compile(r"^/api/settings/secrets/([A-Za-z][A-Za-z0-9_]{0,63})/?$")

_SOURCES: TypeAdapter[dict[str, SecretSpec]] = TypeAdapter(dict[str, SecretSpec])
_EXPOSE = {"expose_secrets": True}


class StoredSecretSource(SecretSource):
    """A secret stored on this server, read from its `SecretStore` when a command names it."""

    name: str
    _store: SecretStore | None = PrivateAttr(default=None)

    def bind(self, store: SecretStore) -> StoredSecretSource:
        """This source reading from `store`."""
        self._store = store
        return self

    def get_value(self) -> str | None:
        """The stored value now (None once deleted, or if no configured key opens it)."""
        if self._store is None:
            return None
        try:
            return self._store.value(self.name)
        except UnsealError as exc:
            logger.warning("stored secret %s cannot be opened: %s", self.name, exc)
            return None


class ConversationSecrets:
    """Resolves, seals and restores the secret sources of conversations."""

    def __init__(self, config: ServerConfig, box: SecretBox, store: SecretStore) -> None:
        self._config = config
        self._box = box
        self._store = store

    def resolve(self, sources: Mapping[str, SecretSource]) -> dict[str, SecretSource]:
        """What the agent's commands read: lookups of this server's own secrets read the store."""
        resolved: dict[str, SecretSource] = {}
        for name, source in sources.items():
            stored = self._own_secret(source)
            if stored is None:
                resolved[name] = source
            else:
                resolved[name] = StoredSecretSource(
                    name=stored, description=source.description
                ).bind(self._store)
        return resolved

    def _own_secret(self, source: SecretSource) -> str | None:
        """The stored secret's name if `source` looks it up on this very server."""
        if not isinstance(source, LookupSecret):
            return None
        try:
            url = urlsplit(source.url)
            port = url.port or (443 if url.scheme == "https" else 80)
        except ValueError:
            return None
        match = STORED_SECRET_PATH.match(url.path)
        if match is None:
            return None
        if self._carries_session_key(source) or (
            url.hostname is not None and self._is_this_server(url.hostname, port)
        ):
            return match.group(1)
        return None

    def _carries_session_key(self, source: LookupSecret) -> bool:
        keys = self._config.session_api_keys
        given = {name.lower(): value.get_secret_value() for name, value in source.headers.items()}
        key = given.get(API_KEY_HEADER.lower())
        return bool(keys) and key_matches(key, keys)

    def _is_this_server(self, hostname: str, port: int) -> bool:
        config = self._config
        host = normalize_host(hostname)
        if config.public_url:
            public = urlsplit(config.public_url)
            public_port = public.port or (443 if public.scheme == "https" else 80)
            if public.hostname and normalize_host(public.hostname) == host and public_port == port:
                return True
        if port != config.port:
            return False
        names = {normalize_host(config.host), *config.allowed_hosts}
        return is_loopback(host) or host in names

    # -- files (blocking) -------------------------------------------------------------------

    def keep(self, folder: Path, sources: Mapping[str, SecretSource]) -> None:
        """Seal `sources` into the conversation's folder (nothing is written for none)."""
        if not sources:
            return
        data = _SOURCES.dump_json(sources, context=_EXPOSE)  # type: ignore[arg-type]
        write_atomic(folder / SOURCES_FILE, self._box.seal(data))

    def restore(self, folder: Path) -> dict[str, SecretSource]:
        """The sources sealed in the folder, resolved; {} if none (or unreadable: logged)."""
        return self.resolve(self.restore_sources(folder))

    def restore_sources(self, folder: Path) -> dict[str, SecretSource]:
        """The sources sealed in the folder as they were sent; {} if none (or unreadable)."""
        path = folder / SOURCES_FILE
        try:
            token = path.read_text()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise storage_error("read", path, exc) from exc
        try:
            sources = _SOURCES.validate_json(self._box.open(token))
        except (UnsealError, ValidationError) as exc:
            logger.warning("%s cannot be read (%s); its secrets are not available", path, exc)
            return {}
        if not self._box.is_current(token):
            try:
                write_atomic(path, self._box.reseal(token))
            except Exception as exc:  # readable with the old key: retried on the next open
                logger.warning("re-sealing %s failed: %s", path, exc)
        return dict(sources)

    def copy(self, source_folder: Path, target_folder: Path) -> None:
        """A fork gets the secret sources of the conversation it copies."""
        source = source_folder / SOURCES_FILE
        try:
            token = source.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise storage_error("read", source, exc) from exc
        write_atomic(target_folder / SOURCES_FILE, token)
