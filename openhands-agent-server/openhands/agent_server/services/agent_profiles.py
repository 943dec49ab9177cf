"""`AgentProfiles`: the named agent specs of /api/agent-profiles, in `agent_profiles.json` in
the settings folder (secret-free: a profile names its LLM profile and MCP servers).

The server keeps each profile's `id` (minted on creation, kept by saves and renames) and
`revision` (bumped by each save). Changes are written before they are answered; a damaged
file is never overwritten (409 until it is fixed or removed).
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any, Literal

from openhands.agent_server.errors import ConflictError, NotFoundError
from openhands.agent_server.services.settings_folder import (
    SETTINGS_UNREADABLE,
    ensure_folder,
    read_document,
    write_document,
)
from openhands.sdk.wire.agent_profiles import AgentProfile, AgentProfileInfo
from pydantic import BaseModel, ConfigDict, Field

PROFILES_FILE = "agent_profiles.json"


class AgentProfilesFile(BaseModel):
    """`agent_profiles.json`: every profile, in the order they were made."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    profiles: list[dict[str, Any]] = Field(default_factory=list)


class AgentProfiles:
    """The agent profiles of one server: read once, changed by atomic writes."""

    def __init__(self, folder: Path, *, max_count: int) -> None:
        self._folder = folder
        self._path = folder / PROFILES_FILE
        self._max_count = max_count
        self.lock = threading.RLock()
        """Held across read-and-write sequences (a save, the seeding of the default)."""
        self._profiles: dict[str, AgentProfile] = {}
        self._problem: str | None = None

    def load(self) -> AgentProfiles:
        """Read the file (blocking); a damaged one is noted, never overwritten."""
        stored = read_document(self._path, AgentProfilesFile)
        if isinstance(stored, str):
            self._problem = stored
        elif stored is not None:
            for data in stored.profiles:
                profile = AgentProfile.model_validate(data)
                self._profiles[profile.name] = profile
        return self

    # -- reads ------------------------------------------------------------------------------

    def infos(self) -> list[AgentProfileInfo]:
        """Every profile's listing entry, in the order they were made."""
        self._check()
        return [
            AgentProfileInfo(
                id=str(p.id),
                name=p.name,
                revision=p.revision,
                llm_profile_ref=p.llm_profile_ref,
                mcp_server_refs=p.mcp_server_refs,
            )
            for p in self._profiles.values()
        ]

    def get(self, name: str) -> AgentProfile:
        """The profile `name`; NotFoundError naming the profiles there are."""
        self._check()
        profile = self._profiles.get(name)
        if profile is None:
            known = ", ".join(self._profiles) or "none"
            raise NotFoundError(f"Agent profile {name!r} not found (profiles: {known}).")
        return profile

    def by_id(self, profile_id: str) -> AgentProfile | None:
        """The profile with that id, or None."""
        self._check()
        return next((p for p in self._profiles.values() if str(p.id) == profile_id), None)

    def is_empty(self) -> bool:
        """Whether no profile is stored."""
        self._check()
        return not self._profiles

    # -- changes (blocking) -----------------------------------------------------------------

    def save(self, profile: AgentProfile) -> AgentProfile:
        """Store `profile` under its name: a namesake keeps its id and gets the next revision,
        a new one gets a new id. 409 past OH_MAX_AGENT_PROFILES."""
        with self.lock:
            self._check()
            current = self._profiles.get(profile.name)
            if current is not None:
                saved = profile.model_copy(
                    update={"id": current.id, "revision": current.revision + 1}
                )
            else:
                if len(self._profiles) >= self._max_count:
                    raise ConflictError(
                        f"The server holds {len(self._profiles)} agent profiles, the most "
                        "OH_MAX_AGENT_PROFILES allows; delete one before saving another."
                    )
                saved = profile.model_copy(update={"id": uuid.uuid4(), "revision": 0})
            self._write({**self._profiles, saved.name: saved})
            return saved

    def delete(self, name: str) -> AgentProfile | None:
        """Delete `name`; None if there was no such profile (nothing changes)."""
        with self.lock:
            self._check()
            profile = self._profiles.get(name)
            if profile is not None:
                self._write({k: v for k, v in self._profiles.items() if k != name})
            return profile

    def rename(self, name: str, new_name: str) -> None:
        """Rename `name` (its id stays); 404 unknown, 409 taken, the same name a no-op."""
        with self.lock:
            profile = self.get(name)
            if new_name == name:
                return
            if new_name in self._profiles:
                raise ConflictError(f"Agent profile {new_name!r} already exists.")
            renamed = profile.model_copy(update={"name": new_name})
            profiles = {(new_name if k == name else k): v for k, v in self._profiles.items()}
            profiles[new_name] = renamed
            self._write(profiles)

    def _write(self, profiles: dict[str, AgentProfile]) -> None:
        ensure_folder(self._folder)
        document = AgentProfilesFile(
            profiles=[p.model_dump(mode="json") for p in profiles.values()]
        )
        write_document(self._path, document)
        self._profiles = profiles

    def _check(self) -> None:
        if self._problem is not None:
            raise ConflictError(
                f"The agent profiles cannot be read: {self._problem}.", code=SETTINGS_UNREADABLE
            )
