"""`MetaProfiles`: the named model-routing configurations of /api/meta-profiles, in
`meta_profiles.json` in the settings folder. Stored and listed for the clients that manage
them; no agent here routes with them (the reference's routing tool is not built), so
activating one changes nothing. Changes are written before they are answered; a damaged file
is never overwritten (409 until it is fixed or removed).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Literal

from openhands.agent_server.errors import ConflictError, NotFoundError
from openhands.agent_server.services.settings_folder import (
    SETTINGS_UNREADABLE,
    ensure_folder,
    read_document,
    write_document,
)
from openhands.sdk.wire.meta_profiles import MetaProfile, MetaProfileInfo
from pydantic import BaseModel, ConfigDict, Field

META_PROFILES_FILE = "meta_profiles.json"


class MetaProfilesFile(BaseModel):
    """`meta_profiles.json`."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    meta_profiles: dict[str, MetaProfile] = Field(default_factory=dict)


class MetaProfiles:
    """The meta profiles of one server: read once, changed by atomic writes."""

    def __init__(self, folder: Path, *, max_count: int) -> None:
        self._folder = folder
        self._path = folder / META_PROFILES_FILE
        self._max_count = max_count
        self._lock = threading.Lock()
        self._profiles: dict[str, MetaProfile] = {}
        self._problem: str | None = None

    def load(self) -> MetaProfiles:
        """Read the file (blocking); a damaged one is noted, never overwritten."""
        stored = read_document(self._path, MetaProfilesFile)
        if isinstance(stored, str):
            self._problem = stored
        elif stored is not None:
            self._profiles = dict(stored.meta_profiles)
        return self

    def infos(self) -> list[MetaProfileInfo]:
        """Every meta profile's listing entry, sorted by name."""
        self._check()
        return [
            MetaProfileInfo(name=n, classifier_model=p.classifier_model, num_classes=len(p.classes))
            for n, p in sorted(self._profiles.items())
        ]

    def get(self, name: str) -> MetaProfile:
        """The meta profile `name`; NotFoundError naming those there are."""
        self._check()
        profile = self._profiles.get(name)
        if profile is None:
            known = ", ".join(sorted(self._profiles)) or "none"
            raise NotFoundError(f"Meta-profile {name!r} not found (meta-profiles: {known}).")
        return profile

    def save(self, name: str, profile: MetaProfile) -> None:
        """Store `profile` as `name` (blocking); 409 past OH_MAX_PROFILES."""
        with self._lock:
            self._check()
            if name not in self._profiles and len(self._profiles) >= self._max_count:
                raise ConflictError(
                    f"The server holds {len(self._profiles)} meta-profiles, the most "
                    "OH_MAX_PROFILES allows; delete one before saving another."
                )
            self._write({**self._profiles, name: profile})

    def delete(self, name: str) -> bool:
        """Delete `name` (blocking); False if there was none (nothing changes)."""
        with self._lock:
            self._check()
            if name not in self._profiles:
                return False
            self._write({k: v for k, v in self._profiles.items() if k != name})
            return True

    def _write(self, profiles: dict[str, MetaProfile]) -> None:
        ensure_folder(self._folder)
        write_document(self._path, MetaProfilesFile(meta_profiles=profiles))
        self._profiles = profiles

    def _check(self) -> None:
        if self._problem is not None:
            raise ConflictError(
                f"The meta-profiles cannot be read: {self._problem}.", code=SETTINGS_UNREADABLE
            )
