"""The per-event copy of the log (`events/event-NNNNN-<id>.json`; on unless `OH_EVENT_FILES=0`)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from openhands.sdk import Event, LocalConversation

NAME = re.compile(r"^event-(\d{5,})-([0-9a-f]+)\.json$")


@pytest.fixture(autouse=True)
def _event_files_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OH_EVENT_FILES", "1")


def _folder(conversation: LocalConversation) -> Path:
    assert conversation.state.persistence_dir is not None
    return Path(conversation.state.persistence_dir)


def _copies(conversation: LocalConversation) -> list[Path]:
    return sorted((_folder(conversation) / "events").glob("event-*.json"))


def _ran(make_conversation, reply, **kwargs) -> LocalConversation:
    conversation, _ = make_conversation([reply.think("plan"), reply.text("done")], **kwargs)
    conversation.send_message("go")
    conversation.run()
    return conversation


def test_after_a_run_every_event_has_its_file_in_log_order(make_conversation, reply) -> None:
    conversation = _ran(make_conversation, reply)

    copies = _copies(conversation)
    log_lines = (_folder(conversation) / "events.jsonl").read_text().splitlines()
    events = list(conversation.state.events)
    assert len(copies) == len(events) == len(log_lines)
    for index, (path, event, line) in enumerate(zip(copies, events, log_lines, strict=True)):
        match = NAME.match(path.name)
        assert match is not None
        assert (int(match.group(1)), match.group(2)) == (index, event.id)
        assert path.read_text() == line
        assert Event.model_validate_json(path.read_text()) == event


@pytest.mark.parametrize("value", ["0", "no", "off"])
def test_opting_out_keeps_no_copy(make_conversation, reply, monkeypatch, value) -> None:
    monkeypatch.setenv("OH_EVENT_FILES", value)
    conversation = _ran(make_conversation, reply)

    assert not (_folder(conversation) / "events").exists()


def test_the_copy_is_kept_by_default(make_conversation, reply, monkeypatch) -> None:
    monkeypatch.delenv("OH_EVENT_FILES")
    conversation = _ran(make_conversation, reply)

    assert len(_copies(conversation)) == len(conversation.state.events)


def test_missing_files_are_written_again_after_a_reopen(make_conversation, reply) -> None:
    conversation = _ran(make_conversation, reply)
    conversation.close()
    for path in _copies(conversation)[1:4]:
        path.unlink()
    copies_dir = _folder(conversation) / "events"
    assert len(list(copies_dir.iterdir())) == len(list(conversation.state.events)) - 3

    reopened, _ = make_conversation([reply.text("again")], conversation_id=conversation.id)
    reopened.send_message("more")
    reopened.run()

    assert len(_copies(reopened)) == len(list(reopened.state.events))


def test_a_conversation_stored_without_the_copy_gets_it_at_its_next_run(
    make_conversation, reply, monkeypatch
) -> None:
    monkeypatch.delenv("OH_EVENT_FILES")
    conversation = _ran(make_conversation, reply)
    conversation.close()
    monkeypatch.setenv("OH_EVENT_FILES", "1")

    reopened, _ = make_conversation([reply.text("again")], conversation_id=conversation.id)
    reopened.send_message("more")
    reopened.run()

    assert len(_copies(reopened)) == len(list(reopened.state.events))


def test_a_copy_that_cannot_be_written_does_not_fail_the_run(
    make_conversation, reply, caplog
) -> None:
    conversation, _ = make_conversation([reply.text("done")])
    (_folder(conversation) / "events").write_text("not a folder")
    conversation.send_message("go")

    with caplog.at_level(logging.WARNING):
        conversation.run()

    assert conversation.state.execution_status == "finished"
    assert "per-event copy" in caplog.text


def test_a_persisted_fork_gets_its_own_copy(make_conversation, reply) -> None:
    conversation = _ran(make_conversation, reply)

    fork = conversation.fork()
    try:
        assert [path.name for path in _copies(fork)] == [
            path.name for path in _copies(conversation)
        ]
    finally:
        fork.close()


def test_the_copier_never_brings_back_a_deleted_conversation_folder(
    make_conversation, reply
) -> None:
    import shutil

    from openhands.sdk.conversation.event_files import EventFiles

    conversation = _ran(make_conversation, reply)
    folder = _folder(conversation)
    log = folder / "events.jsonl"
    size = log.stat().st_size
    conversation.close()
    shutil.rmtree(folder)

    EventFiles(folder, log).update(size)

    assert not folder.exists()
