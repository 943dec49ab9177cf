"""Reading a stored conversation: `base_state.json` with the log written after it folded in.

`base_state.json` holds the configuration and a snapshot of the values derived from the log as
of `events_size` bytes of `events.jsonl`; the newest `ConversationStateUpdateEvent` of each key
written after that offset wins over the snapshot. Only those lines are parsed, so reading a
conversation costs what its last session appended (nothing after a clean close).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openhands.sdk.conversation.errors import ConversationStateError
from openhands.sdk.conversation.event_log import EVENTS_FILE
from openhands.sdk.conversation.log_scan import scan_state_updates
from openhands.sdk.errors import storage_error
from pydantic import ValidationError

__all__ = [
    "BASE_STATE_FILE",
    "EVENTS_SIZE_KEY",
    "HEAD_KEY",
    "STATS_KEY",
    "STATUS_KEY",
    "invalid_state_error",
    "read_persisted_state",
    "read_snapshot",
]

BASE_STATE_FILE = "base_state.json"
EVENTS_SIZE_KEY = "events_size"
"""The base_state.json key saying how many bytes of the log its snapshot accounts for."""

STATUS_KEY = "execution_status"
STATS_KEY = "stats"
HEAD_KEY = "leaf_event_id"
"""State-update keys that set a field of the state (and the HEAD of the conversation tree);
every other key lands in `state_updates`."""


def read_persisted_state(folder: Path) -> dict[str, Any] | None:
    """The stored JSON of the conversation in `folder` with the log's later updates folded in.

    None if it was never saved (no base_state.json). Reads base_state.json and the part of
    events.jsonl written after its snapshot; never parses the rest of the history. Raises
    `ConversationStateError` for an unreadable file, `StorageError` if the disk refuses.
    """
    stored = read_snapshot(folder)
    return None if stored is None else stored[0]


def read_snapshot(folder: Path) -> tuple[dict[str, Any], str] | None:
    """`read_persisted_state` and the text of base_state.json as read (None: never saved)."""
    path = folder / BASE_STATE_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise invalid_state_error(path, exc) from exc
    except OSError as exc:
        raise storage_error("read", path, exc) from exc
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise invalid_state_error(path, exc) from exc
    if not isinstance(data, dict):
        raise invalid_state_error(
            path, ValueError(f"expected a JSON object, got {type(data).__name__}")
        )
    snapshot_size = data.pop(EVENTS_SIZE_KEY, 0)
    start = snapshot_size if isinstance(snapshot_size, int) else 0
    try:
        scan = scan_state_updates(folder / EVENTS_FILE, start)
    except OSError as exc:
        raise storage_error("read", folder / EVENTS_FILE, exc) from exc
    for key, value in scan.updates.items():
        if key == HEAD_KEY:
            continue  # a HEAD move is read from the end of the log when it is needed
        if key in (STATUS_KEY, STATS_KEY):
            data[key] = value
        else:
            updates = data.get("state_updates")
            data["state_updates"] = {**(updates if isinstance(updates, dict) else {}), key: value}
    if scan.last_timestamp is not None:
        data["updated_at"] = scan.last_timestamp
    data["persistence_dir"] = str(folder)
    return data, text


def invalid_state_error(path: Path, exc: Exception) -> ConversationStateError:
    """The error for an unreadable `base_state.json` at `path`: the cause and the fix."""
    return ConversationStateError(
        f"{path} is not a valid conversation state ({_reason(exc)}). Restore it from a "
        "backup, or remove that folder (or use another conversation_id) to start over."
    )


def _reason(exc: Exception) -> str:
    """A one-line cause; for a validation error, the fields at fault."""
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'root'}: {error['msg']}"
            for error in exc.errors()[:3]
        )
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
