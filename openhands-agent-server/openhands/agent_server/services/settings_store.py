"""`SettingsStore`: the server's stored settings (GET/PATCH /api/settings), secrets sealed.

The settings are the agent settings new agents start from (`llm`, `mcp_config` and any other
keys a client keeps there), conversation settings and client-owned misc settings, plus the
active LLM profile. `settings.json` holds them with every secret taken out (the values an
`StoredAgentSettings` dump shows only with `expose_secrets`: the LLM's key, MCP env and headers)
and sealed in one part, so the file shows what is configured and never a key.

A PATCH is a deep merge of the diff into what is stored (a `null` inside a nested object
removes that key), validated, written, and only then answered and used: a refused write
leaves the old settings in force, in memory and on disk. Reads are from memory.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from openhands.agent_server.errors import ConflictError, InvalidRequestError
from openhands.agent_server.services.sealed_credentials import (
    EXPOSE,
    AgentSecrets,
    model_secrets,
    put_secrets,
)
from openhands.agent_server.services.sealing import SecretBox, UnsealError
from openhands.agent_server.services.settings_folder import (
    SETTINGS_UNREADABLE,
    read_document,
    write_document,
)
from openhands.sdk.errors import StorageError
from openhands.sdk.llm import LLM
from openhands.sdk.mcp.config import MCPServer
from openhands.sdk.settings import SettingsResponse, SettingsUpdateRequest, StoredAgentSettings
from pydantic import BaseModel, ConfigDict, Field, ValidationError

logger = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"


class SettingsFile(BaseModel):
    """`settings.json`: the settings with their secrets sealed apart."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    agent_settings: dict[str, Any] = Field(default_factory=dict)
    sealed: str | None = Field(default=None, description="The agent settings' secrets, sealed.")
    conversation_settings: dict[str, Any] = Field(default_factory=dict)
    misc_settings: dict[str, Any] = Field(default_factory=dict)
    active_profile: str | None = None
    active_agent_profile_id: str | None = None


class Settings(BaseModel):
    """The settings in memory, secrets included."""

    agent_settings: StoredAgentSettings = Field(default_factory=StoredAgentSettings)
    conversation_settings: dict[str, Any] = Field(default_factory=dict)
    misc_settings: dict[str, Any] = Field(default_factory=dict)
    active_profile: str | None = None
    active_agent_profile_id: str | None = None


def deep_merge(base: dict[str, Any], diff: dict[str, Any], *, top: bool = True) -> dict[str, Any]:
    """`base` with `diff` merged in: objects merge key by key, lists and values replace.

    A `null` below the top level removes that key; at the top it is a value (so a field
    that may not be null fails validation instead of silently resetting).
    """
    merged = dict(base)
    for key, value in diff.items():
        current = merged.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            merged[key] = deep_merge(current, value, top=False)
        elif value is None and not top:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


class SettingsStore:
    """The stored settings of one server: read from memory, changed by atomic writes."""

    def __init__(self, folder: Path, box: SecretBox, *, max_bytes: int) -> None:
        self._path = folder / SETTINGS_FILE
        self._box = box
        self._max_bytes = max_bytes
        self._lock = threading.Lock()  # serializes updates (reads take the current object)
        self._settings = Settings()
        self._problem: str | None = None

    # -- start-up ---------------------------------------------------------------------------

    def load(self) -> None:
        """Read `settings.json` (blocking); re-seal it if an older key sealed it.

        A damaged file, or one no configured key opens, is left untouched and noted: reads
        and updates then answer 409 saying how to fix it.
        """
        try:
            stored = read_document(self._path, SettingsFile)
        except StorageError as exc:  # answered 409 with the reason until the disk is fixed
            stored = str(exc)
        if stored is None:
            return
        if isinstance(stored, str):
            self._problem = stored
            logger.warning("Stored settings unreadable: %s", stored)
            return
        try:
            self._settings = self._open(stored)
        except (UnsealError, ValidationError) as exc:
            self._problem = f"{self._path} cannot be opened ({exc}); restore the key it was "
            self._problem += f"sealed with in {self._box.source}, or remove the file"
            logger.warning("Stored settings unreadable: %s", self._problem)
            return
        if stored.sealed is not None and not self._box.is_current(stored.sealed):
            try:
                write_document(self._path, self._seal(self._settings))
            except Exception as exc:  # it stays readable with the old key: retried next start
                logger.warning("Re-sealing %s failed: %s", self._path, exc)

    # -- reads ------------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The settings in force (secrets included; never answer them as they are)."""
        self._check()
        return self._settings

    @property
    def active_profile(self) -> str | None:
        """The LLM profile last applied to the settings (None also when unreadable)."""
        return None if self._problem is not None else self._settings.active_profile

    def llm(self) -> LLM | None:
        """The stored agent LLM with its key, or None (also when the file is unreadable)."""
        if self._problem is not None:
            return None
        return self._settings.agent_settings.llm

    def mcp_config(self) -> dict[str, MCPServer]:
        """The stored MCP servers, their env and headers included."""
        return dict(self.settings.agent_settings.mcp_config)

    def response(self) -> SettingsResponse:
        """What GET /api/settings answers: the settings without any secret."""
        return to_response(self.settings)

    # -- updates ----------------------------------------------------------------------------

    def update(
        self,
        request: SettingsUpdateRequest,
        *,
        profile_llm: LLM | None = None,
        check: Callable[[Settings], None] | None = None,
    ) -> SettingsResponse:
        """Merge `request` into the stored settings, write them, then use them (blocking).

        `profile_llm` is the LLM of `request.active_profile` (the caller looked it up); it
        becomes `agent_settings.llm` unless the diff names an `llm`. Bad values are an
        `InvalidRequestError` naming the field; a refusing disk a `StorageError` (and
        nothing changed). `check` may refuse the update (by raising) after seeing the current
        settings, under the same lock.
        """
        with self._lock:
            self._check()
            current = self._settings
            if check is not None:
                check(current)
            agent_data = current.agent_settings.model_dump(
                mode="json", context=EXPOSE, exclude_unset=True
            )
            agent_diff = request.agent_settings_diff or {}
            if profile_llm is not None and "llm" not in agent_diff:
                agent_diff = {
                    **agent_diff,
                    "llm": profile_llm.model_dump(mode="json", context=EXPOSE, exclude_unset=True),
                }
                agent_data.pop("llm", None)  # replaced whole, not merged
            try:
                agent_settings = StoredAgentSettings.model_validate(
                    deep_merge(agent_data, agent_diff)
                )
            except ValidationError as exc:
                error = exc.errors()[0]
                loc = ("body", "agent_settings_diff", *error["loc"])
                raise InvalidRequestError(str(error["msg"]), loc) from None
            fields = request.model_fields_set
            updated = Settings(
                agent_settings=agent_settings,
                conversation_settings=deep_merge(
                    current.conversation_settings, request.conversation_settings_diff or {}
                ),
                misc_settings=deep_merge(current.misc_settings, request.misc_settings_diff or {}),
                active_profile=(
                    request.active_profile if "active_profile" in fields else current.active_profile
                ),
                active_agent_profile_id=(
                    request.active_agent_profile_id
                    if "active_agent_profile_id" in fields
                    else current.active_agent_profile_id
                ),
            )
            document = self._seal(updated)
            size = len(document.model_dump_json().encode())
            if size > self._max_bytes:
                raise InvalidRequestError(
                    f"the settings would take {size} bytes, more than OH_MAX_SETTINGS_BYTES "
                    f"({self._max_bytes}); store less, or raise that setting",
                    ("body",),
                )
            write_document(self._path, document)
            self._settings = updated
            return to_response(updated)

    def forget_profile(self, name: str) -> None:
        """A deleted profile is no longer the active one (blocking; best kept consistent)."""
        self.rename_profile(name, None)

    def rename_profile(self, name: str, new_name: str | None) -> None:
        """The active profile `name` is now called `new_name` (None: it was deleted)."""
        with self._lock:
            if self._problem is not None or self._settings.active_profile != name:
                return
            updated = self._settings.model_copy(update={"active_profile": new_name})
            write_document(self._path, self._seal(updated))
            self._settings = updated

    # -- files ------------------------------------------------------------------------------

    def _check(self) -> None:
        if self._problem is not None:
            raise ConflictError(
                f"The stored settings cannot be read: {self._problem}.", code=SETTINGS_UNREADABLE
            )

    def _seal(self, settings: Settings) -> SettingsFile:
        secrets = model_secrets(settings.agent_settings, exclude_unset=True)
        public = settings.agent_settings.model_dump(mode="json", exclude_unset=True)
        sealed = (
            self._box.seal(secrets.model_dump_json(context=EXPOSE).encode())
            if secrets.values
            else None
        )
        return SettingsFile(
            agent_settings=public,
            sealed=sealed,
            conversation_settings=settings.conversation_settings,
            misc_settings=settings.misc_settings,
            active_profile=settings.active_profile,
            active_agent_profile_id=settings.active_agent_profile_id,
        )

    def _open(self, stored: SettingsFile) -> Settings:
        data = dict(stored.agent_settings)
        if stored.sealed is not None:
            put_secrets(data, AgentSecrets.model_validate_json(self._box.open(stored.sealed)))
        return Settings(
            agent_settings=StoredAgentSettings.model_validate(data),
            conversation_settings=stored.conversation_settings,
            misc_settings=stored.misc_settings,
            active_profile=stored.active_profile,
            active_agent_profile_id=stored.active_agent_profile_id,
        )


def to_response(settings: Settings) -> SettingsResponse:
    """The answer for `settings`: every secret left out (an LLM's key is always null)."""
    agent = settings.agent_settings
    llm = agent.llm
    # What was set, not every default: the reference's clients validate these settings with
    # their own models, whose defaults differ (a `null` where theirs wants a number).
    return SettingsResponse(
        agent_settings=agent.model_dump(mode="json", exclude_unset=True),
        conversation_settings=settings.conversation_settings,
        llm_api_key_is_set=llm is not None and llm.api_key is not None,
        active_profile=settings.active_profile,
        active_agent_profile_id=settings.active_agent_profile_id,
        misc_settings=settings.misc_settings,
    )
