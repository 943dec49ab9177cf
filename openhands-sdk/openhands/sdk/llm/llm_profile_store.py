"""`LLMProfileStore`: named LLM configurations saved as JSON files.

A profile is `<base_dir>/<name>.json`, the LLM's settings (credentials only when saved with
`include_secrets=True`), kept in a `ProfileFolder` (atomic writes, an advisory lock).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.errors import LLMConfigurationError
from openhands.sdk.llm.profile_folder import PROFILE_NAME, ProfileFolder, default_profile_dir

if TYPE_CHECKING:
    from openhands.sdk.llm.llm import LLM

__all__ = ["PROFILE_NAME", "LLMProfileStore", "default_profile_dir"]


class LLMProfileStore(ProfileFolder):
    """Saves, loads, lists and deletes LLM profiles in one folder."""

    def save(self, name: str, llm: LLM, include_secrets: bool = False) -> None:
        """Save `llm` as profile `name`, replacing any profile of that name.

        Credentials are written only with `include_secrets=True`. Profile files are
        readable by their owner only.
        """
        context = {"expose_secrets": True} if include_secrets else None
        data: dict[str, Any] = llm.model_dump(mode="json", context=context)
        self.write(name, json.dumps(data, indent=2).encode())

    def load(self, name: str) -> LLM:
        """The LLM saved as `name`; `NotFoundError` (a FileNotFoundError) names the profiles there are."""
        from openhands.sdk.llm.llm import LLM

        text = self.read(name)
        try:
            return LLM.model_validate_json(text)
        except ValueError as exc:
            raise LLMConfigurationError(
                f"LLM profile {name!r} ({self._path(name)}) is not a valid LLM: {exc}"
            ) from exc
