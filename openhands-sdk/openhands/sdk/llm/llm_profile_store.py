"""`LLMProfileStore`: named LLM configurations saved as JSON files.

A profile is `<base_dir>/<name>.json`, the LLM's settings (credentials only when saved with
`include_secrets=True`). Writes are atomic (temp file, fsync, rename; mode 0600) and every access holds
an advisory lock on `<base_dir>/.profiles.lock`, so processes sharing the folder never see
half a file.
"""

from __future__ import annotations

import builtins
import contextlib
import fcntl
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.sdk.errors import InvalidArgumentError, NotFoundError
from openhands.sdk.io.atomic import write_atomic
from openhands.sdk.llm.errors import LLMConfigurationError

if TYPE_CHECKING:
    from openhands.sdk.llm.llm import LLM

logger = logging.getLogger(__name__)

PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
"""1-64 characters: a letter or digit, then letters, digits, '.', '_' or '-'."""


def default_profile_dir() -> Path:
    """`~/.openhands/profiles` (of the current `HOME`)."""
    return Path.home() / ".openhands" / "profiles"


class LLMProfileStore:
    """Saves, loads, lists and deletes LLM profiles in one folder."""

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

    def save(self, name: str, llm: LLM, include_secrets: bool = False) -> None:
        """Save `llm` as profile `name`, replacing any profile of that name.

        Credentials are written only with `include_secrets=True`. Profile files are
        readable by their owner only.
        """
        path = self._path(name)
        context = {"expose_secrets": True} if include_secrets else None
        data: dict[str, Any] = llm.model_dump(mode="json", context=context)
        payload = json.dumps(data, indent=2).encode()
        with self._locked():
            if path.exists():
                logger.info("Profile %r exists; overwriting it", name)
            write_atomic(path, payload)

    def load(self, name: str) -> LLM:
        """The LLM saved as `name`; `NotFoundError` (a FileNotFoundError) names the profiles there are."""
        from openhands.sdk.llm.llm import LLM

        path = self._path(name)
        with self._locked():
            if not path.exists():
                known = ", ".join(sorted(p.stem for p in self.base_dir.glob("*.json")))
                raise NotFoundError(
                    f"No LLM profile {name!r} in {self.base_dir} (profiles: {known or 'none'}); "
                    "save one under that name first."
                )
            text = path.read_text(encoding="utf-8")
        try:
            return LLM.model_validate_json(text)
        except ValueError as exc:
            raise LLMConfigurationError(
                f"LLM profile {name!r} ({path}) is not a valid LLM: {exc}"
            ) from exc

    def delete(self, name: str) -> None:
        """Delete profile `name`; a missing profile is not an error."""
        path = self._path(name)
        with self._locked():
            path.unlink(missing_ok=True)
