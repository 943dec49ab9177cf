"""A full or read-only disk: clear StorageErrors, nothing acknowledged lost, no corrupt line.

Each test mounts a real 2 MB tmpfs (skipped where mounting is not permitted).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk import (
    Agent,
    ConversationExecutionStatus,
    LocalConversation,
    Message,
    MessageEvent,
    TextContent,
)
from openhands.sdk.conversation import ConversationRunError
from openhands.sdk.conversation.event_log import EVENTS_FILE
from openhands.sdk.conversation.recording import RUN_LOST
from openhands.sdk.errors import StorageError, StorageFullError
from openhands.sdk.event import ConversationErrorEvent, ConversationStateUpdateEvent, Event
from openhands.sdk.testing import TestLLM

from .tmpfs import fill, mounted_tmpfs, remount_read_only

Status = ConversationExecutionStatus
PADDING = "x" * 100_000  # each message is a 100 kB line


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs, unmounted after the test."""
    with mounted_tmpfs(tmp_path / "disk", "2m") as where:
        yield where


def _open(disk: Path, workspace: Path, replies=(), **kwargs) -> LocalConversation:
    return LocalConversation(
        Agent(llm=TestLLM.from_messages(list(replies))),
        workspace,
        persistence_dir=disk / "conversations",
        **kwargs,
    )


def _user_texts(conversation: LocalConversation) -> list[str]:
    return [
        event.llm_message.text
        for event in conversation.state.events
        if isinstance(event, MessageEvent) and event.source == "user"
    ]


def _assert_every_line_is_an_event(conversation: LocalConversation) -> None:
    folder = conversation.state.folder
    assert folder is not None
    for line in (folder / EVENTS_FILE).read_bytes().split(b"\n")[:-1]:
        Event.model_validate_json(line)  # raises on a partial or corrupt line


def test_messages_acknowledged_before_and_after_a_full_disk_all_survive(
    disk: Path, tmp_path: Path
) -> None:
    filler = fill(disk, leave=1_200_000)  # room for about a dozen messages
    conversation = _open(disk, tmp_path / "work")
    acknowledged: list[str] = []
    with pytest.raises(StorageFullError, match="Free disk space"):
        for index in range(100):
            text = f"message {index}: {PADDING}"
            conversation.send_message(text)
            acknowledged.append(text)
    assert 5 <= len(acknowledged) < 100
    with pytest.raises(StorageFullError):
        conversation.send_message(f"still full: {PADDING}")  # refused again, cleanly

    filler.unlink()
    for index in range(3):
        text = f"after space returned {index}: {PADDING}"
        conversation.send_message(text)
        acknowledged.append(text)
    conversation.close()

    reopened = _open(disk, tmp_path / "work", conversation_id=conversation.id)
    try:
        assert _user_texts(reopened) == acknowledged
        _assert_every_line_is_an_event(reopened)
    finally:
        reopened.close()


def test_a_run_that_fills_the_disk_ends_with_a_clear_error_and_can_run_again(
    disk: Path, tmp_path: Path
) -> None:
    big_reply = Message(role="assistant", content=[TextContent(text=PADDING * 3)])
    small_reply = Message(role="assistant", content=[TextContent(text="done")])
    conversation = _open(disk, tmp_path / "work", [big_reply, small_reply])
    conversation.send_message("answer at length")
    filler = fill(disk, leave=0)  # not even the run's end can be recorded

    with pytest.raises(ConversationRunError) as caught:
        conversation.run()

    assert caught.value.code == "StorageFullError"
    assert "Free disk space" in caught.value.detail
    assert not conversation.is_running
    assert conversation.state.execution_status == Status.ERROR
    filler.unlink()
    conversation.send_message("try again, briefly")
    conversation.run()
    assert conversation.state.execution_status == Status.FINISHED
    assert PADDING * 3 not in [event.llm_message.text for event in _messages(conversation)]
    _assert_every_line_is_an_event(conversation)
    conversation.close()


def test_a_run_whose_end_cannot_be_recorded_reopens_as_interrupted(
    disk: Path, tmp_path: Path
) -> None:
    reply = Message(role="assistant", content=[TextContent(text="an answer")])
    conversation = _open(disk, tmp_path / "work", [reply])
    events_file = disk / "conversations" / conversation.id.hex / EVENTS_FILE

    def fill_once_running(event: Event) -> None:
        # Right after `running` is on disk: end the log on a page boundary (tmpfs fills the
        # last page's slack first) and fill the disk, so that no later event fits at all.
        if isinstance(event, ConversationStateUpdateEvent) and event.value == "running":
            conversation.append_event(_padding(4096 - events_file.stat().st_size % 4096))
            fill(disk, leave=0)

    conversation.add_callback(fill_once_running)
    conversation.send_message("go")
    with pytest.raises(ConversationRunError, match="StorageFullError"):
        conversation.run()
    assert conversation.state.execution_status == Status.ERROR  # in memory: nobody waits
    (disk / "filler").unlink()
    conversation.close()

    reopened = _open(disk, tmp_path / "work", conversation_id=conversation.id)
    try:
        assert reopened.state.execution_status == Status.ERROR
        errors = [e for e in reopened.state.events if isinstance(e, ConversationErrorEvent)]
        assert [e.code for e in errors] == [RUN_LOST]  # the log said `running`
        _assert_every_line_is_an_event(reopened)
    finally:
        reopened.close()


def _padding(length: int) -> Event:
    """A user message whose line in the log is `length` bytes (or one page more if shorter)."""
    empty = MessageEvent(source="user", llm_message=Message(role="user", content=[]))
    # Measured as appended: stamped with the HEAD's id (32 hex digits) as its parent_id.
    stamped = empty.model_copy(update={"parent_id": "0" * 32})
    bare = len(stamped.model_dump_json()) + 1 + len('{"type":"text","text":""}')
    text = "y" * ((length - bare) % 4096)
    return empty.model_copy(
        update={"llm_message": Message(role="user", content=[TextContent(text=text)])}
    )


def test_a_read_only_folder_is_a_storage_error_not_a_raw_os_error(
    disk: Path, tmp_path: Path
) -> None:
    conversation = _open(disk, tmp_path / "work")
    conversation.send_message("written while the disk was writable")
    conversation.close()
    before = (disk / "conversations" / conversation.id.hex / "base_state.json").read_text()
    remount_read_only(disk)

    reopened = _open(disk, tmp_path / "work", conversation_id=conversation.id)
    with pytest.raises(StorageError, match="writable") as caught:
        reopened.send_message("refused")
    reopened.close()

    assert type(caught.value) is StorageError  # read-only, not full
    assert (disk / "conversations" / conversation.id.hex / "base_state.json").read_text() == before
    assert _user_texts(reopened) == ["written while the disk was writable"]


def test_creating_a_conversation_on_a_read_only_folder_is_a_storage_error(
    disk: Path, tmp_path: Path
) -> None:
    remount_read_only(disk)

    with pytest.raises(StorageError, match=str(disk)):
        _open(disk, tmp_path / "work")


def _messages(conversation: LocalConversation) -> list[MessageEvent]:
    return [e for e in conversation.state.events if isinstance(e, MessageEvent)]
