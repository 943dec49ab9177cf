"""The settings folder: where stored settings, secrets and LLM profiles live, and its files.

One folder (`OH_SETTINGS_PATH`, default `settings` beside the conversations folder, mode
0700) holds `settings.json`, `secrets.json` and `profiles/`. Each file is one JSON document
replaced atomically (`write_atomic`: mode 0600, fsynced), whose secret parts are sealed with
the server's key. A file that cannot be parsed or opened is never overwritten: its store
refuses changes (409) until the key is restored or the file removed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

from openhands.sdk.errors import storage_error
from openhands.sdk.io import write_atomic
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

FOLDER_MODE = 0o700

SETTINGS_UNREADABLE = "settings_unreadable"
"""The `detail` of a 409 answered by a store whose file cannot be read."""


def ensure_folder(path: Path) -> None:
    """Create `path` (and its parents) if missing, the folder itself private (0700)."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    except OSError as exc:
        raise storage_error("create", path, exc) from exc


def read_document(path: Path, model: type[M]) -> M | str | None:
    """The document in `path`; None if there is none; a reason (str) if it is damaged.

    A disk that refuses the read raises `StorageError`.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise storage_error("read", path, exc) from exc
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        return f"{path} is damaged ({exc.error_count()} errors); restore it or remove it"


def write_document(path: Path, document: BaseModel) -> None:
    """Replace `path` with `document` (atomic, durable, mode 0600); `StorageError` if refused."""
    write_atomic(path, document.model_dump_json())


def remove_file(path: Path) -> None:
    """Remove `path` (already gone is fine); `StorageError` if the disk refuses."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise storage_error("remove", path, exc) from exc
