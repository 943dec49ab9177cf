"""The event logs: append, read a range, length; events.jsonl survives torn writes."""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path

import pytest
from openhands.sdk.conversation import EventLog, FileEventLog, InMemoryEventLog
from openhands.sdk.conversation.event_log import (
    EVENTS_FILE,
    EventLogClosedError,
    EventLogCorruptError,
)
from openhands.sdk.errors import StorageError
from openhands.sdk.event import ConversationErrorEvent, Event, PauseEvent
from openhands.sdk.io import AppendHandles


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


# -- a disk that refuses -------------------------------------------------------------------------


def _big_event(size: int = 20_000) -> Event:
    return ConversationErrorEvent(code="big", detail="x" * size)


def test_a_refused_append_leaves_the_file_as_it_was(tmp_path: Path, file_size_limit) -> None:
    log = FileEventLog(tmp_path)
    events = _events(2)
    for event in events:
        log.append(event)
    before = (tmp_path / EVENTS_FILE).read_bytes()

    with file_size_limit(len(before) + 100), pytest.raises(StorageError, match="append"):
        log.append(_big_event())  # the kernel accepts 100 bytes, then refuses the rest

    assert (tmp_path / EVENTS_FILE).read_bytes() == before
    assert log.read() == events
    log.close()


def test_a_refused_event_is_not_kept_and_later_appends_are_clean(
    tmp_path: Path, file_size_limit
) -> None:
    log = FileEventLog(tmp_path)
    first = _events(1)[0]
    log.append(first)
    size = (tmp_path / EVENTS_FILE).stat().st_size
    refused = _big_event()

    with file_size_limit(size + 100), pytest.raises(StorageError):
        log.append(refused)
    later = PauseEvent()
    log.append(later)
    log.close()

    assert log.get(refused.id) is None
    lines = (tmp_path / EVENTS_FILE).read_text().splitlines()
    assert [Event.model_validate_json(line) for line in lines] == [first, later]


def test_when_a_failed_append_cannot_be_undone_later_appends_are_refused_until_reopened(
    tmp_path: Path, file_size_limit, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = FileEventLog(tmp_path)
    kept = _events(1)[0]
    log.append(kept)
    size = (tmp_path / EVENTS_FILE).stat().st_size

    def failing_truncate(fd: int, length: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    with monkeypatch.context() as patch:
        patch.setattr(os, "ftruncate", failing_truncate)  # the disk fails the undo too
        with file_size_limit(size + 100), pytest.raises(StorageError):
            log.append(_big_event())
    assert (tmp_path / EVENTS_FILE).stat().st_size == size + 100  # a partial line is left

    with pytest.raises(StorageError, match=r"refused.*Reopen"):
        log.append(PauseEvent())  # it would land after the partial line
    log.close()

    reopened = FileEventLog(tmp_path)
    after = PauseEvent()
    reopened.append(after)
    reopened.close()
    lines = (tmp_path / EVENTS_FILE).read_text().splitlines()
    assert [Event.model_validate_json(line) for line in lines] == [kept, after]


# -- reading on demand ------------------------------------------------------------------------


def test_opening_a_log_does_not_parse_its_events(tmp_path: Path) -> None:
    path = _write(tmp_path, _events(3))
    lines = path.read_bytes().split(b"\n")
    lines[0] = b'{"kind":"NoSuchEvent"}'
    path.write_bytes(b"\n".join(lines))

    log = FileEventLog(tmp_path)  # would raise if it parsed the history
    extra = PauseEvent()
    log.append(extra)  # appending needs only the last line
    log.close()

    assert path.read_bytes().endswith(extra.model_dump_json().encode() + b"\n")
    with pytest.raises(EventLogCorruptError, match=r"events\.jsonl:1 "):
        len(log)


def test_events_appended_before_the_first_read_are_read_back(tmp_path: Path) -> None:
    events = _events(3)
    _write(tmp_path, events[:2])

    log = FileEventLog(tmp_path)
    log.append(events[2])

    assert log.read() == events
    assert log.index_of(events[2].id) == 2
    log.close()


def test_a_torn_tail_is_cut_before_the_first_append_without_reading(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    events = _events(2)
    path = _write(tmp_path, events)
    with open(path, "ab") as handle:
        handle.write(b'{"kind":"PauseEvent","id":"ab')

    log = FileEventLog(tmp_path)
    with caplog.at_level(logging.WARNING):
        extra = PauseEvent()
        log.append(extra)
    log.close()

    assert "torn last line" in caplog.text
    lines = path.read_text().splitlines()
    assert [Event.model_validate_json(line) for line in lines] == [*events, extra]


def test_a_log_holds_no_descriptor_between_appends_beyond_the_cache(tmp_path: Path) -> None:
    handles = AppendHandles(max_open=1)
    logs = [FileEventLog(tmp_path / f"c{index}", handles=handles) for index in range(5)]

    for log in logs:
        log.append(PauseEvent())

    assert len(handles) == 1
    for log in logs:
        log.close()
    assert len(handles) == 0


def test_a_complete_last_event_with_bytes_that_are_not_utf8_is_reported(tmp_path: Path) -> None:
    events = _events(2)
    path = _write(tmp_path, events)
    damaged = PauseEvent().model_dump_json().encode().replace(b'"id":"', b'"id":"\xff\xfe', 1)
    with open(path, "ab") as handle:
        handle.write(damaged + b"\n")

    log = FileEventLog(tmp_path)
    with pytest.raises(EventLogCorruptError, match="not UTF-8"):
        log.read()
    log.close()

    assert path.read_bytes().endswith(damaged + b"\n")  # nothing was cut
