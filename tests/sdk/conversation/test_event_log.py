"""The event logs: append, read a range, length; events.jsonl survives torn writes."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from openhands.sdk.conversation import EventLog, FileEventLog, InMemoryEventLog
from openhands.sdk.conversation.event_log import (
    EVENTS_FILE,
    EventLogClosedError,
    EventLogCorruptError,
)
from openhands.sdk.event import ConversationErrorEvent, Event, PauseEvent


def _events(count: int) -> list[Event]:
    return [ConversationErrorEvent(code=f"c{i}", detail=f"event {i}") for i in range(count)]


def _write(folder: Path, events: list[Event]) -> Path:
    log = FileEventLog(folder)
    for event in events:
        log.append(event)
    log.close()
    return folder / EVENTS_FILE


@pytest.fixture(params=["memory", "file"])
def log(request: pytest.FixtureRequest, tmp_path: Path):
    """Each kind of event log, empty."""
    made = InMemoryEventLog() if request.param == "memory" else FileEventLog(tmp_path / "log")
    yield made
    if isinstance(made, FileEventLog):
        made.close()


def test_logs_keep_the_event_log_contract(log) -> None:
    assert isinstance(log, EventLog)


def test_append_then_read_ranges(log) -> None:
    events = _events(5)
    for event in events:
        log.append(event)

    assert len(log) == 5
    assert log.read() == events
    assert log.read(1, 3) == events[1:3]
    assert log.read(4) == events[4:]
    assert list(log) == events


def test_events_are_found_by_id(log) -> None:
    events = _events(3)
    for event in events:
        log.append(event)

    assert log.index_of(events[2].id) == 2
    assert log.get(events[1].id) == events[1]
    assert log.get("missing") is None


def test_a_reopened_file_log_has_the_same_events(tmp_path: Path) -> None:
    events = _events(4)
    _write(tmp_path, events)

    reopened = FileEventLog(tmp_path)
    try:
        assert reopened.read() == events
        assert reopened.index_of(events[3].id) == 3
    finally:
        reopened.close()


def test_a_torn_last_line_is_dropped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    events = _events(3)
    path = _write(tmp_path, events)
    half_line = PauseEvent().model_dump_json().encode()[:25]
    with open(path, "ab") as handle:
        handle.write(half_line)

    with caplog.at_level(logging.WARNING):
        reopened = FileEventLog(tmp_path)
    try:
        assert reopened.read() == events
        assert "torn last line" in caplog.text
        assert not path.read_bytes().endswith(half_line)
        extra = PauseEvent()
        reopened.append(extra)
    finally:
        reopened.close()

    lines = path.read_text().splitlines()
    assert [Event.model_validate_json(line) for line in lines] == [*events, extra]


def test_a_corrupt_last_line_is_dropped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    events = _events(2)
    path = _write(tmp_path, events)
    with open(path, "ab") as handle:
        handle.write(b"\x00\x00\x00garbage\n")

    with caplog.at_level(logging.WARNING):
        reopened = FileEventLog(tmp_path)
    reopened.close()

    assert reopened.read() == events
    assert path.read_bytes().count(b"\n") == 2


def test_a_complete_last_event_missing_its_newline_is_kept(tmp_path: Path) -> None:
    events = _events(2)
    path = _write(tmp_path, events)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))

    reopened = FileEventLog(tmp_path)
    extra = PauseEvent()
    reopened.append(extra)
    reopened.close()

    lines = path.read_text().splitlines()
    assert [Event.model_validate_json(line) for line in lines] == [*events, extra]


def test_damage_before_the_end_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, _events(3))
    lines = path.read_bytes().split(b"\n")
    lines[1] = b'{"kind":"ConversationErrorEvent","id":'
    path.write_bytes(b"\n".join(lines))

    reopened = FileEventLog(tmp_path)  # events are parsed on the first read
    with pytest.raises(EventLogCorruptError, match=r"events\.jsonl:2 "):
        reopened.read()


def test_blank_lines_are_ignored(tmp_path: Path) -> None:
    events = _events(2)
    path = _write(tmp_path, events)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\n\n", 1))

    reopened = FileEventLog(tmp_path)
    reopened.close()

    assert reopened.read() == events


def test_appending_to_a_closed_log_says_to_reopen(tmp_path: Path) -> None:
    log = FileEventLog(tmp_path)
    log.close()

    with pytest.raises(EventLogClosedError, match="Reopen"):
        log.append(PauseEvent())


def test_a_missing_folder_is_created(tmp_path: Path) -> None:
    log = FileEventLog(tmp_path / "a" / "b")
    log.close()

    assert (tmp_path / "a" / "b" / EVENTS_FILE).is_file()
