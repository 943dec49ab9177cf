"""scan_state_updates: the newest value of each state-update key, reading only what it must."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk.conversation import FileEventLog
from openhands.sdk.conversation.event_log import EVENTS_FILE
from openhands.sdk.conversation.log_scan import scan_state_updates
from openhands.sdk.event import ConversationStateUpdateEvent, Event, PauseEvent


def _update(key: str, value: object) -> ConversationStateUpdateEvent:
    return ConversationStateUpdateEvent(key=key, value=value)


def _write(folder: Path, events: list[Event]) -> Path:
    log = FileEventLog(folder)
    for event in events:
        log.append(event)
    log.close()
    return folder / EVENTS_FILE


def test_the_newest_value_of_each_key_wins(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            _update("execution_status", "running"),
            PauseEvent(),
            _update("goal", {"status": "running"}),
            _update("execution_status", "finished"),
        ],
    )

    scan = scan_state_updates(path)

    assert scan.updates == {"goal": {"status": "running"}, "execution_status": "finished"}
    assert scan.end == path.stat().st_size


def test_a_scan_from_an_offset_ignores_what_came_before(tmp_path: Path) -> None:
    path = _write(tmp_path, [_update("execution_status", "running"), _update("goal", 1)])
    offset = path.stat().st_size
    _write(tmp_path, [PauseEvent(), _update("execution_status", "paused")])

    scan = scan_state_updates(path, offset)

    assert scan.start == offset
    assert scan.updates == {"execution_status": "paused"}


def test_an_offset_inside_a_line_scans_the_whole_log(tmp_path: Path) -> None:
    path = _write(tmp_path, [_update("goal", 1), _update("execution_status", "idle")])

    scan = scan_state_updates(path, 5)

    assert scan.start == 0
    assert scan.updates == {"goal": 1, "execution_status": "idle"}


def test_an_offset_past_the_end_scans_the_whole_log(tmp_path: Path) -> None:
    path = _write(tmp_path, [_update("goal", 1)])

    assert scan_state_updates(path, 10**9).updates == {"goal": 1}


def test_a_torn_last_line_is_skipped(tmp_path: Path) -> None:
    path = _write(tmp_path, [_update("execution_status", "running")])
    complete = path.stat().st_size
    torn = _update("execution_status", "finished").model_dump_json().encode()[:-10]
    with open(path, "ab") as handle:
        handle.write(torn)

    scan = scan_state_updates(path)

    assert scan.updates == {"execution_status": "running"}
    assert scan.end == complete


def test_the_last_events_timestamp_is_reported(tmp_path: Path) -> None:
    last = PauseEvent()
    path = _write(tmp_path, [_update("goal", 1), last])

    scan = scan_state_updates(path)

    assert scan.last_timestamp is not None
    assert Event.model_validate_json(path.read_text().splitlines()[-1]).timestamp == last.timestamp
    assert scan.last_timestamp.startswith(last.timestamp.isoformat()[:19])


def test_updates_are_found_across_read_chunks(tmp_path: Path) -> None:
    filler = PauseEvent().model_dump_json() + "\n"
    middle = _update("goal", "middle").model_dump_json() + "\n"
    path = tmp_path / EVENTS_FILE
    path.write_text(filler * 10_000 + middle + filler * 10_000)  # well over one 1 MB read

    assert scan_state_updates(path).updates == {"goal": "middle"}


def test_a_missing_log_scans_as_empty(tmp_path: Path) -> None:
    scan = scan_state_updates(tmp_path / EVENTS_FILE)

    assert (scan.end, scan.updates, scan.last_timestamp) == (0, {}, None)
