"""Installed skills and plugins: copies in a folder, tracked by its `.installed.json` manifest.

An install folder (`~/.openhands/skills/installed/`, `~/.openhands/plugins/installed/`)
holds one subfolder per installed extension, named after it, and `.installed.json`, which
maps each name to where it came from (source, requested ref, commit), when it was installed
and whether it is enabled. Skills are listed under the manifest's `skills` key and plugins
under `extensions` (the keys the reference SDK writes and reads); any of `extensions`,
`skills` and `plugins` is read. The manifest is replaced atomically and every change holds a
lock on the folder, so two processes never lose each other's installs. Listing reconciles
the manifest with the disk: an entry whose folder is gone is dropped, a folder that loads but
is not tracked is added.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from openhands.sdk.errors import InvalidStateError
from openhands.sdk.extensions.confinement import check_confined
from openhands.sdk.extensions.errors import ExtensionError, ExtensionInstallError
from openhands.sdk.io.atomic import remove_leftover_temp_files, write_atomic
from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["MANIFEST_FILE", "InstallationInfo", "InstallationManager", "LoadedExtension"]

logger = logging.getLogger(__name__)

MANIFEST_FILE = ".installed.json"
_MANIFEST_KEYS = ("extensions", "skills", "plugins")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def _now() -> str:
    return datetime.now(UTC).isoformat()


class InstallationInfo(BaseModel):
    """One installed skill or plugin, as the manifest records it."""

    model_config = ConfigDict(defer_build=True)

    name: str = Field(description="Its name (also its folder's name).")
    version: str = Field(default="", description="Its version, if it declares one.")
    description: str = Field(default="", description="What it is for.")
    enabled: bool = Field(default=True, description="Loaded by load_installed_*() when true.")
    source: str = Field(description="Where it was installed from (a path or a git URL).")
    requested_ref: str | None = Field(
        default=None, description="The branch, tag or commit asked for (None: the default)."
    )
    resolved_ref: str | None = Field(
        default=None, description="The commit installed, for a git source."
    )
    repo_path: str | None = Field(default=None, description="The subfolder of the repository.")
    installed_at: str = Field(default_factory=_now, description="When (ISO 8601, UTC).")
    install_path: Path = Field(description="Its folder in the install folder.")

    @classmethod
    def from_extension(
        cls,
        extension: Any,
        source: str,
        install_path: Path,
        requested_ref: str | None = None,
        resolved_ref: str | None = None,
        repo_path: str | None = None,
    ) -> InstallationInfo:
        """The record of `extension` (anything with `name`, `version` and `description`: a
        skill, a plugin) installed from `source` into `install_path`, enabled, now."""
        return cls(
            name=extension.name,
            version=getattr(extension, "version", "") or "",
            description=getattr(extension, "description", "") or "",
            source=source,
            install_path=install_path,
            requested_ref=requested_ref,
            resolved_ref=resolved_ref,
            repo_path=repo_path,
        )


class LoadedExtension:
    """What an install needs to know of a skill or plugin read from a folder."""

    __slots__ = ("description", "name", "version")

    def __init__(self, name: str, version: str = "", description: str = "") -> None:
        self.name = name
        self.version = version
        self.description = description


T = TypeVar("T")


class InstallationManager(Generic[T]):
    """Installs, lists, loads, toggles, updates and removes one kind of extension.

    `load(folder)` reads an extension (raising on a folder that is not one); `describe`
    gives its name, version and description; `fetch(source, ref, repo_path, update)` gives
    the folder to copy and the commit (None for a local folder). Without `fetch` the manager
    reads, lists and toggles what is installed, and refuses to install.
    """

    def __init__(
        self,
        installed_dir: Path,
        *,
        kind: Literal["skill", "plugin"],
        manifest_key: Literal["skills", "extensions"],
        load: Callable[[Path], T],
        describe: Callable[[T], LoadedExtension],
        fetch: Callable[[str, str | None, str | None, bool], tuple[Path, str | None]] | None = None,
    ) -> None:
        self.installed_dir = Path(installed_dir).expanduser()
        self.kind = kind
        self.manifest_key = manifest_key
        self._load = load
        self._describe = describe
        self._fetch = fetch

    # -- changes -------------------------------------------------------------------------------

    def install(
        self,
        source: str,
        ref: str | None = None,
        repo_path: str | None = None,
        force: bool = False,
        *,
        update: bool = True,
        enabled: bool = True,
    ) -> InstallationInfo:
        """Fetch `source`, check it is a valid extension, copy it in and record it.

        Raises the fetch error, ExtensionInstallError when it is not an extension, holds a
        symbolic link out of its folder or a special file (`confinement.py`), its name cannot
        be a folder name or it is installed already (without `force`).
        """
        if self._fetch is None:
            raise InvalidStateError(
                f"This {self.kind} installation only reads {self.installed_dir}: install "
                f"with install_{self.kind}()"
            )
        folder, commit = self._fetch(source, ref, repo_path, update)
        # Before anything is read: a link out of the source would read (and copy) any file.
        check_confined(folder, what=f"{self.kind} source {source}")
        try:
            extension = self._load(folder)
        except (OSError, ValueError) as exc:
            raise ExtensionInstallError(f"{source} is not a valid {self.kind}: {exc}") from exc
        described = self._describe(extension)
        name = self._checked_name(described.name)
        with self._locked() as manifest:
            target = self.installed_dir / name
            if (name in manifest or target.exists()) and not force:
                raise ExtensionInstallError(
                    f"The {self.kind} {name!r} is installed already (in {target}); pass "
                    "force=True to replace it, or uninstall it first"
                )
            _copy_in(folder, target)
            info = InstallationInfo(
                name=name,
                version=described.version,
                description=described.description,
                enabled=enabled,
                source=source,
                requested_ref=ref,
                resolved_ref=commit,
                repo_path=repo_path,
                install_path=target,
            )
            manifest[name] = info
        logger.info("Installed %s %r from %s", self.kind, name, source)
        return info

    def uninstall(self, name: str) -> bool:
        """Remove an installed extension; False when none of that name is installed."""
        if _SAFE_NAME.match(name) is None:
            return False
        with self._locked() as manifest:
            target = self.installed_dir / name
            known = manifest.pop(name, None) is not None
            if not target.exists():
                return known
            _remove(target)
        logger.info("Uninstalled %s %r", self.kind, name)
        return True

    def enable(self, name: str) -> bool:
        """Load it again from now on; False when it is not installed."""
        return self._set_enabled(name, True)

    def disable(self, name: str) -> bool:
        """Keep it installed but do not load it; False when it is not installed."""
        return self._set_enabled(name, False)

    def update(self, name: str) -> InstallationInfo | None:
        """Fetch it again from its recorded source and ref; None when it is not installed.

        The enabled flag is kept. Raises the fetch error when the source is unavailable
        (the installed copy is then left as it was).
        """
        info = self.get(name)
        if info is None:
            return None
        return self.install(
            info.source,
            ref=info.requested_ref,
            repo_path=info.repo_path,
            force=True,
            enabled=info.enabled,
        )

    # -- reading -------------------------------------------------------------------------------

    def get(self, name: str) -> InstallationInfo | None:
        """The record of an installed extension, or None."""
        return next((info for info in self.list_installed() if info.name == name), None)

    def list_installed(self) -> list[InstallationInfo]:
        """Every installed extension, by name, after reconciling the manifest with the disk."""
        if not self.installed_dir.is_dir():
            return []
        with self._locked() as manifest:
            for name in [n for n, info in manifest.items() if not info.install_path.is_dir()]:
                logger.warning("Installed %s %r has no folder any more; forgotten", self.kind, name)
                del manifest[name]
            for folder in sorted(self.installed_dir.iterdir()):
                if folder.name in manifest or not folder.is_dir() or folder.name.startswith("."):
                    continue
                try:
                    described = self._describe(self._load(folder))
                except (OSError, ValueError) as exc:
                    logger.warning("Skipping %s: not a valid %s (%s)", folder, self.kind, exc)
                    continue
                manifest[folder.name] = InstallationInfo(
                    name=folder.name,
                    version=described.version,
                    description=described.description,
                    source=str(folder),
                    install_path=folder,
                )
            return [manifest[name] for name in sorted(manifest)]

    def load_installed(self) -> list[T]:
        """The enabled extensions, loaded (one that fails to load is logged and skipped)."""
        loaded: list[T] = []
        for info in self.list_installed():
            if not info.enabled:
                continue
            try:
                loaded.append(self._load(info.install_path))
            except (OSError, ValueError, ExtensionError) as exc:
                logger.warning("Installed %s %r not loaded: %s", self.kind, info.name, exc)
        return loaded

    # -- helpers -------------------------------------------------------------------------------

    def _set_enabled(self, name: str, enabled: bool) -> bool:
        if self.get(name) is None:
            return False
        with self._locked() as manifest:
            info = manifest.get(name)
            if info is None:
                return False
            manifest[name] = info.model_copy(update={"enabled": enabled})
        return True

    def _checked_name(self, name: str) -> str:
        if _SAFE_NAME.match(name) is None or name in (".", ".."):
            raise ExtensionInstallError(
                f"The {self.kind} name {name!r} cannot be a folder name: use letters, digits, "
                "'.', '_' and '-' (e.g. 'pdf-tools')"
            )
        return name

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, InstallationInfo]]:
        """The manifest, under the folder's lock; written back if the block changed it."""
        self.installed_dir.mkdir(parents=True, exist_ok=True)
        with open(self.installed_dir / ".installed.lock", "a+b") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            # Copies and writes happen under this lock: what a killed one left is stale.
            remove_staging_folders(self.installed_dir)
            remove_leftover_temp_files(self.installed_dir, [MANIFEST_FILE])
            manifest = self._read()
            before = {name: info.model_dump(mode="json") for name, info in manifest.items()}
            yield manifest
            after = {name: info.model_dump(mode="json") for name, info in manifest.items()}
            if after != before:
                payload = {self.manifest_key: dict(sorted(after.items()))}
                write_atomic(self.installed_dir / MANIFEST_FILE, json.dumps(payload, indent=2))

    def _read(self) -> dict[str, InstallationInfo]:
        path = self.installed_dir / MANIFEST_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            logger.warning("Ignoring unreadable %s (it is rebuilt from the folders): %s", path, exc)
            return {}
        entries: dict[str, object] = {}
        if isinstance(data, dict):
            for key in reversed(_MANIFEST_KEYS):  # `extensions` wins a name
                section = data.get(key)
                if isinstance(section, dict):
                    entries.update(section)
        manifest: dict[str, InstallationInfo] = {}
        for name, raw in entries.items():
            try:
                manifest[name] = InstallationInfo.model_validate(raw)
            except ValidationError as exc:
                logger.warning("Ignoring the manifest entry %r of %s: %s", name, path, exc)
        return manifest


_STAGING = re.compile(r"^\.(?P<name>.+)\.[a-z0-9_]{8}$")
"""A staging folder of `_copy_in`, `_remove` or a clone (`tempfile.mkdtemp`'s random part)."""


def remove_staging_folders(folder: Path, name: str | None = None) -> None:
    """Remove the staging folders (of `name` only, if given) a killed copy, removal or clone
    left in `folder`. Call it only while holding the lock those are made under."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        match = _STAGING.match(entry.name)
        if match is None or (name is not None and match["name"] != name):
            continue
        if entry.is_dir(follow_symlinks=False):
            logger.info("Removing %s, left by an interrupted install or fetch", entry.path)
            shutil.rmtree(entry.path, ignore_errors=True)


def _copy_in(source: Path, target: Path) -> None:
    """Copy `source` to `target` (replacing it) so that `target` is never half-copied."""
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        copied = staging / "copy"
        shutil.copytree(source, copied, ignore=shutil.ignore_patterns(".git"), symlinks=True)
        if target.exists():
            old = staging / "old"
            os.replace(target, old)
        os.replace(copied, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _remove(target: Path) -> None:
    trash = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    os.replace(target, trash / "old")
    shutil.rmtree(trash, ignore_errors=True)
