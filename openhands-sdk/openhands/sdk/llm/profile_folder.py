"""The folder of saved LLM profiles: one `<name>.json` per profile, read and written whole.

Writes are atomic (temp file, fsync, rename; mode 0600) and every access holds an advisory
lock on `<base_dir>/.profiles.lock`, so processes sharing the folder never see half a file.
`LLMProfileStore` turns the files into `LLM`s; the fallback strategy of an LLM reads them
here, so it needs no LLM class of its own.
"""

from __future__ import annotations

import builtins
import contextlib
import fcntl
import logging
import re
from collections.abc import Iterator
from pathlib import Path

from openhands.sdk.errors import InvalidArgumentError, NotFoundError
from openhands.sdk.io.atomic import write_atomic

logger = logging.getLogger(__name__)

PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
"""1-64 characters: a letter or digit, then letters, digits, '.', '_' or '-'."""


def default_profile_dir() -> Path:
    """`~/.openhands/profiles` (of the current `HOME`)."""
    return Path.home() / ".openhands" / "profiles"


class ProfileFolder:
    """Reads, writes, lists and deletes the profile files of one folder."""

    def __init__(self, base_dir: Path | str | None = None) -> None:
        """Use `base_dir` (created if missing); None: `~/.openhands/profiles`."""
        self.base_dir = Path(base_dir) if base_dir is not None else default_profile_dir()
        self.base_dir.mkdir(parents=True, exist_ok=True)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with open(self.base_dir / ".profiles.lock", "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _path(self, name: str) -> Path:
        clean = name.removesuffix(".json")
        if not PROFILE_NAME.match(clean):
            raise InvalidArgumentError(
                f"Invalid profile name {name!r}: use 1-64 characters, starting with a letter "
                "or digit, then letters, digits, '.', '_' or '-'."
            )
        return self.base_dir / f"{clean}.json"

    def list(self) -> builtins.list[str]:
        """The profile file names, sorted (e.g. `["fast.json", "smart.json"]`)."""
        with self._locked():
            return sorted(path.name for path in self.base_dir.glob("*.json"))

    def read(self, name: str) -> str:
        """The text of profile `name`; `NotFoundError` (a FileNotFoundError) names the
        profiles there are."""
        path = self._path(name)
        with self._locked():
            if not path.exists():
                known = ", ".join(sorted(p.stem for p in self.base_dir.glob("*.json")))
                raise NotFoundError(
                    f"No LLM profile {name!r} in {self.base_dir} (profiles: {known or 'none'}); "
                    "save one under that name first."
                )
            return path.read_text(encoding="utf-8")

    def write(self, name: str, payload: bytes) -> None:
        """Replace profile `name` with `payload` (atomically)."""
        path = self._path(name)
        with self._locked():
            if path.exists():
                logger.info("Profile %r exists; overwriting it", name)
            write_atomic(path, payload)

    def delete(self, name: str) -> None:
        """Delete profile `name`; a missing profile is not an error."""
        path = self._path(name)
        with self._locked():
            path.unlink(missing_ok=True)
