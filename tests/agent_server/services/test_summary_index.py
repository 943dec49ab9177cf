"""The start-up index of stored conversations: read instead of every conversation's files, and
right whatever happened since it was written (a conversation written to, added, removed or
re-created behind the server's back, a server killed while writing it, a damaged index)."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from openhands.agent_server.blocking import Pools
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.services import storage
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.agent_server.services.summary_index import INDEX_FILE, read_index
from openhands.sdk import Agent, LocalConversation
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.conversation.goal import GoalLimits, GoalStatus, GoalStatusWriter
from openhands.sdk.event import ConversationStateUpdateEvent, Event
from openhands.sdk.testing import TestLLM

Status = ConversationExecutionStatus
Start = Callable[[], Awaitable[ConversationRegistry]]


def _store(
    root: Path, title: str, *updates: Event, conversation_id: uuid.UUID | None = None
) -> uuid.UUID:
    """A conversation written by another process (this one, then closed)."""
    conversation = LocalConversation(
        Agent(llm=TestLLM.from_messages([])),
        root / "work",
        persistence_dir=root / "conversations",
        conversation_id=conversation_id,
    )
    conversation.send_message(title)
    for event in updates:
        conversation.append_event(event)
    conversation.close()
    return conversation.id


def _append(root: Path, conversation_id: uuid.UUID, *updates: Event) -> None:
    """Reopen a stored conversation in this process and append to it (the server is stopped)."""
    conversation = LocalConversation(
        None, persistence_dir=root / "conversations", conversation_id=conversation_id
    )
    for event in updates:
        conversation.append_event(event)
    conversation.close()


class Reads:
    """Counts the summaries read from conversations' files (the work the index saves)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ids: list[uuid.UUID] = []
        real = storage.load_conversation_summary

        def counted(path: Path, conversation_id: uuid.UUID):  # type: ignore[no-untyped-def]
            self.ids.append(conversation_id)
            return real(path, conversation_id)

        monkeypatch.setattr(storage, "load_conversation_summary", counted)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    return Reads(monkeypatch)


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[Start]:
    """Start a registry on `tmp_path/conversations`; each is shut down (writing the index)
    before the next one starts."""
    config = ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(tmp_path / "conversations"),
            "OH_WORKSPACE_PATH": str(tmp_path / "workspaces"),
        }
    )
    pools = Pools.create(4, 4)
    running: list[ConversationRegistry] = []

    async def starter() -> ConversationRegistry:
        while running:
            await running.pop().close_all()
        registry = ConversationRegistry(config, pools)
        await registry.load_all()
        running.append(registry)
        return registry

    yield starter
    for registry in running:
        await registry.close_all()
    pools.shutdown()


async def _titles(registry: ConversationRegistry) -> list[str | None]:
    page, _ = await registry.search(page_id=None, limit=100, status=None)
    return [item.title for item in page]


async def _flush(registry: ConversationRegistry) -> None:
    """Wait for the background work of a start (the index written when it was out of date)."""
    await registry.close_all()


async def test_a_start_with_a_current_index_reads_no_conversation(
    tmp_path: Path, start: Start, reads: Reads
) -> None:
    ids = [_store(tmp_path, f"task {n}") for n in range(3)]
    first = await start()
    await _flush(first)
    assert sorted(reads.ids) == sorted(ids)  # no index yet: each one read, then indexed
    reads.ids.clear()

    second = await start()

    assert reads.ids == [] and second.count() == 3 and second.open_count == 0
    assert await _titles(second) == ["task 2", "task 1", "task 0"]  # read for the page
    assert sorted(reads.ids) == sorted(ids)


async def test_a_conversation_written_after_the_index_is_read_again(
    tmp_path: Path, start: Start, reads: Reads
) -> None:
    quiet, busy = _store(tmp_path, "quiet"), _store(tmp_path, "busy")
    await _flush(await start())
    _append(tmp_path, busy, ConversationStateUpdateEvent(key="execution_status", value="error"))
    reads.ids.clear()

    registry = await start()

    assert reads.ids == [busy]
    found, _ = await registry.search(page_id=None, limit=10, status=Status.ERROR)
    assert [item.id for item in found] == [busy] and registry.count(Status.ERROR) == 1
    assert quiet not in [item.id for item in found]


async def test_a_goal_left_running_after_the_index_was_written_is_recovered(
    tmp_path: Path, start: Start
) -> None:
    cid = _store(tmp_path, "hello")
    await _flush(await start())
    status = GoalStatus(
        active=True, status="running", iteration=1, limits=GoalLimits(), objective="it works"
    )
    _append(tmp_path, cid, GoalStatusWriter().event(status))  # a server died mid-goal

    registry = await start()

    live = registry.find(cid)
    assert live is not None and live.goal.status is not None
    assert (live.goal.status.status, live.goal.status.reason) == ("interrupted", "server restart")


async def test_folders_added_and_removed_behind_the_servers_back_are_seen(
    tmp_path: Path, start: Start
) -> None:
    kept, removed = _store(tmp_path, "kept"), _store(tmp_path, "removed")
    await _flush(await start())
    shutil.rmtree(tmp_path / "conversations" / removed.hex)
    added = _store(tmp_path, "added")

    registry = await start()
    await _flush(registry)

    assert await _titles(registry) == ["added", "kept"]
    assert set(read_index(tmp_path / "conversations")) == {kept, added}


async def test_a_conversation_deleted_and_created_again_under_its_id_is_not_the_indexed_one(
    tmp_path: Path, start: Start
) -> None:
    cid = _store(tmp_path, "first life")
    await _flush(await start())
    shutil.rmtree(tmp_path / "conversations" / cid.hex)
    _store(tmp_path, "second life", conversation_id=cid)

    registry = await start()

    assert await _titles(registry) == ["second life"]


async def test_a_damaged_or_foreign_index_is_rebuilt_from_the_conversations(
    tmp_path: Path, start: Start, reads: Reads
) -> None:
    ids = [_store(tmp_path, f"task {n}") for n in range(2)]
    index = tmp_path / "conversations" / INDEX_FILE
    for damage in (
        b'{"version": 1, "entries": [{"id": "',
        b"",
        json.dumps({"version": 9}).encode(),
    ):
        (tmp_path / "conversations").mkdir(exist_ok=True)
        index.write_bytes(damage)
        reads.ids.clear()

        registry = await start()
        await _flush(registry)

        assert sorted(reads.ids) == sorted(ids) and registry.count() == 2
        assert set(read_index(tmp_path / "conversations")) == set(ids)


async def test_what_a_server_killed_while_writing_the_index_leaves_is_cleaned_up(
    tmp_path: Path, start: Start, reads: Reads
) -> None:
    """An index write is a temp file renamed over the index: a kill -9 before the rename
    leaves the previous index and the temp file (the rename is atomic)."""
    old, new = _store(tmp_path, "old"), None
    await _flush(await start())
    folder = tmp_path / "conversations"
    previous = (folder / INDEX_FILE).read_bytes()
    new = _store(tmp_path, "new")
    leftover = folder / f".{INDEX_FILE}.k9x2.tmp"
    leftover.write_bytes(previous[: len(previous) // 2])  # the cut-off write
    reads.ids.clear()

    registry = await start()
    await _flush(registry)

    assert reads.ids == [new] and registry.count() == 2
    assert not leftover.exists()
    assert set(read_index(folder)) == {old, new}


async def test_conversations_opened_by_the_server_are_indexed_again_at_shutdown(
    tmp_path: Path, start: Start, reads: Reads
) -> None:
    cid = _store(tmp_path, "hello")
    first = await start()
    live = await first.get(cid)
    await live.append_event(ConversationStateUpdateEvent(key="execution_status", value="error"))
    await first.close_all()
    reads.ids.clear()

    second = await start()

    assert reads.ids == []  # the shutdown indexed it as it was then
    assert second.count(Status.ERROR) == 1
