"""`ProfileStore`: named LLM configurations (/api/profiles), their keys sealed.

Profiles are files of the SDK's `LLMProfileStore` in `<settings folder>/profiles/` (one JSON
file each, written atomically under the store's lock), except that every credential field
(`api_key`, the AWS keys) holds the value sealed with the server's key instead of the value.
They are read into memory at start-up, so a conversation or the gateway naming a profile
never waits for the disk, and changed on disk before in memory.

`ConversationProfiles` is this store as the server's conversations see it (their
`profile_store`): `switch_profile` and tools asking for a profile (`ask_oracle`'s `oracle`)
load from here, never from the server user's `~/.openhands/profiles`.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from openhands.agent_server.errors import ConflictError, NotFoundError
from openhands.agent_server.services.sealing import SecretBox, UnsealError
from openhands.agent_server.services.settings_folder import ensure_folder
from openhands.sdk.errors import NotFoundError as ProfileNotFound
from openhands.sdk.errors import StorageError, storage_error
from openhands.sdk.llm import LLM, LLMProfileStore
from openhands.sdk.llm.errors import LLMConfigurationError
from openhands.sdk.llm.llm import SECRET_FIELDS
from openhands.sdk.settings import ProfileDetailResponse, ProfileInfo
from pydantic import SecretStr

logger = logging.getLogger(__name__)

PROFILES_FOLDER = "profiles"


@dataclass(frozen=True)
class Profile:
    """A profile in memory: its LLM (keys opened) and why a key is missing, if it is."""

    name: str
    llm: LLM
    problem: str | None = None

    @property
    def api_key_set(self) -> bool:
        """Whether the profile carries a usable key."""
        return self.llm.api_key is not None and bool(self.llm.api_key.get_secret_value())


class ProfileStore:
    """The server's LLM profiles by name: saved, listed, loaded (keys opened), deleted."""

    def __init__(self, folder: Path, box: SecretBox, *, max_count: int) -> None:
        self._folder = folder / PROFILES_FOLDER
        self._box = box
        self._max_count = max_count
        self._lock = threading.Lock()
        self._profiles: dict[str, Profile] = {}
        self._files: LLMProfileStore | None = None

    def load(self) -> None:
        """Read every profile (blocking), re-sealing keys an older key sealed.

        A folder that cannot be created or locked (a read-only disk) leaves no profile
        loaded, logged; saving one then answers 503.
        """
        try:
            ensure_folder(self._folder)
            files = self._files = LLMProfileStore(self._folder)
            names = [name.removesuffix(".json") for name in files.list()]
        except (StorageError, OSError) as exc:
            self._files = None
            logger.warning("The LLM profiles in %s cannot be read: %s", self._folder, exc)
            return
        for name in names:
            try:
                stored = files.load(name)
            except (ValueError, OSError) as exc:
                logger.warning("LLM profile %s skipped: %s", name, exc)
                continue
            self._profiles[name] = self._open(name, stored)
            if self._stale(stored) and self._profiles[name].problem is None:
                try:
                    files.save(name, self._sealed(self._profiles[name].llm), include_secrets=True)
                except Exception as exc:  # still readable with the old key: retried next start
                    logger.warning("Re-sealing LLM profile %s failed: %s", name, exc)

    # -- reads ------------------------------------------------------------------------------

    def names(self) -> list[str]:
        """Every profile's name, sorted."""
        return sorted(self._profiles)

    def find(self, name: str) -> Profile | None:
        """The profile named `name`, or None."""
        return self._profiles.get(name)

    def get(self, name: str) -> Profile:
        """The profile named `name`; NotFoundError naming the profiles there are."""
        profile = self._profiles.get(name)
        if profile is None:
            known = ", ".join(self.names()) or "none"
            raise NotFoundError(f"No LLM profile is named {name!r} (profiles: {known}).")
        return profile

    def infos(self) -> list[ProfileInfo]:
        """Each profile's listing entry, sorted by name."""
        return [info(self._profiles[name]) for name in self.names()]

    def detail(self, name: str) -> ProfileDetailResponse:
        """GET /api/profiles/{name}: its settings, `api_key` null."""
        profile = self.get(name)
        # Defaults left out: the reference's clients build their own `LLM(**config)`, whose
        # defaults differ (a `null` where theirs wants a number); `api_key` stays, as null.
        config = profile.llm.model_dump(mode="json", exclude_defaults=True)
        config["api_key"] = None
        return ProfileDetailResponse(name=name, config=config, api_key_set=profile.api_key_set)

    # -- changes ----------------------------------------------------------------------------

    def save(self, name: str, llm: LLM, *, include_secrets: bool) -> None:
        """Save `llm` as `name`, replacing a profile of that name (blocking)."""
        if not include_secrets:
            llm = llm.model_copy(update=dict.fromkeys(SECRET_FIELDS))
        with self._lock:
            if name not in self._profiles and len(self._profiles) >= self._max_count:
                raise ConflictError(
                    f"The server holds {len(self._profiles)} LLM profiles, the most "
                    "OH_MAX_PROFILES allows; delete one first, or raise that setting."
                )
            self._store().save(name, self._sealed(llm), include_secrets=True)
            self._profiles[name] = Profile(name, llm)

    def delete(self, name: str) -> bool:
        """Delete `name` (blocking); False if there was no such profile."""
        with self._lock:
            if name not in self._profiles:
                return False
            try:
                self._store().delete(name)
            except OSError as exc:
                raise StorageError(f"Cannot delete LLM profile {name}: {exc}", exc) from exc
            del self._profiles[name]
            return True

    def rename(self, name: str, new_name: str) -> None:
        """Rename a profile (blocking): the new file is written before the old one goes.
        NotFoundError for an unknown `name`, ConflictError if `new_name` is taken; the same
        name is a no-op."""
        with self._lock:
            profile = self._profiles.get(name)
            if profile is None:
                known = ", ".join(self.names()) or "none"
                raise NotFoundError(f"Profile {name!r} not found (profiles: {known}).")
            if new_name == name:
                return
            if new_name in self._profiles:
                raise ConflictError(
                    f"Profile {new_name!r} already exists; delete it or choose another name."
                )
            store = self._store()
            store.save(new_name, self._sealed(profile.llm), include_secrets=True)
            try:
                store.delete(name)
            except OSError as exc:
                store.delete(new_name)
                raise StorageError(f"Cannot rename LLM profile {name}: {exc}", exc) from exc
            del self._profiles[name]
            self._profiles[new_name] = Profile(new_name, profile.llm, profile.problem)

    # -- sealing ----------------------------------------------------------------------------

    def _store(self) -> LLMProfileStore:
        if self._files is None:
            try:
                ensure_folder(self._folder)
                self._files = LLMProfileStore(self._folder)
            except OSError as exc:
                raise storage_error("write", self._folder, exc) from exc
        return self._files

    def _sealed(self, llm: LLM) -> LLM:
        """`llm` with each credential replaced by its sealed value (what the file holds)."""
        update: dict[str, SecretStr] = {}
        for field in SECRET_FIELDS:
            value = getattr(llm, field)
            if isinstance(value, SecretStr):
                update[field] = SecretStr(self._box.seal(value.get_secret_value().encode()))
        return llm.model_copy(update=update)

    def _open(self, name: str, stored: LLM) -> Profile:
        update: dict[str, SecretStr | None] = {}
        problem = None
        for field in SECRET_FIELDS:
            value = getattr(stored, field)
            if not isinstance(value, SecretStr):
                continue
            try:
                update[field] = SecretStr(self._box.open(value.get_secret_value()).decode())
            except UnsealError as exc:
                update[field] = None
                problem = f"its {field} cannot be opened: {exc}"
        if problem is not None:
            logger.warning("LLM profile %s: %s; it is used without it", name, problem)
        return Profile(name, stored.model_copy(update=update), problem)

    def _stale(self, stored: LLM) -> bool:
        for field in SECRET_FIELDS:
            value = getattr(stored, field)
            if isinstance(value, SecretStr) and not self._box.is_current(value.get_secret_value()):
                return True
        return False


class ConversationProfiles:
    """The server's profiles as a conversation loads them (the SDK's `ProfileSource`): by
    name, the key opened in memory only (on disk it stays sealed)."""

    def __init__(self, store: ProfileStore) -> None:
        self._store = store

    def load(self, name: str) -> LLM:
        """A copy of profile `name`'s LLM, key included.

        The SDK's `NotFoundError` (a FileNotFoundError) names the profiles there are; a
        profile whose key cannot be opened is an `LLMConfigurationError` (a ValueError)
        saying to save it again.
        """
        profile = self._store.find(name)
        if profile is None:
            known = ", ".join(self._store.names()) or "none"
            raise ProfileNotFound(
                f"No LLM profile is named {name!r} on this agent server (profiles: {known}); "
                f"save one with POST /api/profiles/{name} or in the page's settings."
            )
        if profile.problem is not None:
            raise LLMConfigurationError(
                f"LLM profile {name!r} cannot be used: {profile.problem}; save it again with "
                f"its key (POST /api/profiles/{name})."
            )
        return profile.llm.copy_for(profile.llm.usage_id)


def info(profile: Profile) -> ProfileInfo:
    """A profile's listing entry."""
    return ProfileInfo(
        name=profile.name,
        model=profile.llm.model,
        base_url=profile.llm.base_url,
        provider_connection_id=profile.llm.provider_connection_id,
        api_key_set=profile.api_key_set,
    )
