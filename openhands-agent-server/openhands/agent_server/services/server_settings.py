"""`ServerSettings`: the server's stored settings, secrets and LLM profiles, built together.

One object per server (composed in app.py, read by the routes from `app.state`): the three
stores share the settings folder and the server's sealing key, and give conversations what
they need: keys for LLMs sent without one (`llm_defaults`) and the stored secrets a
conversation refers to by name (`conversation_secrets`).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from openhands.agent_server.config import ServerConfig
from openhands.agent_server.services.conversation_secrets import ConversationSecrets
from openhands.agent_server.services.profile_store import PROFILES_FOLDER, ProfileStore
from openhands.agent_server.services.sealing import SecretBox
from openhands.agent_server.services.secret_store import SecretStore
from openhands.agent_server.services.settings_folder import ensure_folder
from openhands.agent_server.services.settings_store import SettingsStore
from openhands.agent_server.services.stored_llms import StoredLLMDefaults
from openhands.sdk.errors import StorageError
from openhands.sdk.io import remove_leftover_temp_files

if TYPE_CHECKING:
    from openhands.agent_server.services.provider_connections import ProviderConnections

logger = logging.getLogger(__name__)


class ServerSettings:
    """Settings, secrets and profiles of one server, sealed with its key."""

    def __init__(self, config: ServerConfig, box: SecretBox) -> None:
        self.folder = config.settings_folder
        self.settings = SettingsStore(self.folder, box, max_bytes=config.max_settings_bytes)
        self.secrets = SecretStore(
            self.folder, box, max_count=config.max_secrets, max_bytes=config.max_secret_bytes
        )
        self.profiles = ProfileStore(self.folder, box, max_count=config.max_profiles)
        self._box = box
        self._max_connections = config.max_provider_connections
        self._connections: ProviderConnections | None = None
        self._connections_lock = threading.Lock()
        self.llm_defaults = StoredLLMDefaults(
            config, self.settings, self.profiles, connections=lambda: self._connections
        )
        self.conversation_secrets = ConversationSecrets(config, box, self.secrets)

    def load(self) -> None:
        """Create the folder if needed and read every store (blocking; at start-up).

        A folder that cannot be created (a read-only disk) does not stop the server: what
        is there is read, and a change answers 503 when its write is refused.
        """
        try:
            ensure_folder(self.folder)
        except StorageError as exc:
            logger.warning("The settings folder is not writable: %s", exc)
        # A kill -9 in the middle of a write leaves its temp file: nothing else removes it.
        remove_leftover_temp_files(self.folder)
        remove_leftover_temp_files(self.folder / PROFILES_FOLDER)
        self.settings.load()
        self.secrets.load()
        self.profiles.load()
        if (self.folder / "provider_connections.json").exists():
            self.provider_connections()  # profiles may name them: ready before any is used

    def provider_connections(self) -> ProviderConnections:
        """The provider connections (/api/llm/provider-connections), read on first use
        (blocking); a server without any never loads them."""
        with self._connections_lock:
            if self._connections is None:
                from openhands.agent_server.services.provider_connections import (
                    ProviderConnections,
                )

                self._connections = ProviderConnections(
                    self.folder, self._box, max_count=self._max_connections
                ).load()
            return self._connections
