"""ConversationRegistry on a real folder: summaries at start-up, conversations opened on demand."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from openhands.agent_server.blocking import Pools
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.errors import NotFoundError
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.sdk import Agent, LocalConversation
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.conversation.goal import GoalLimits, GoalStatus, GoalStatusWriter
from openhands.sdk.conversation.recording import RUN_LOST
from openhands.sdk.event import ConversationErrorEvent, ConversationStateUpdateEvent, Event
from openhands.sdk.testing import TestLLM
from openhands.sdk.wire import StartConversationRequest

Status = ConversationExecutionStatus
Start = Callable[[], Awaitable[ConversationRegistry]]


def _store(root: Path, title: str, *updates: Event, working_dir: Path | None = None) -> uuid.UUID:
    """A conversation written by another process (this one, then closed)."""
    conversation = LocalConversation(
        Agent(llm=TestLLM.from_messages([])),
        working_dir or root / "work",
        persistence_dir=root / "conversations",
    )
    conversation.send_message(title)
    for event in updates:
        conversation.append_event(event)
    conversation.close()
    return conversation.id


def _goal(status: str, *, active: bool, iteration: int = 1) -> GoalStatus:
    return GoalStatus(
        active=active,
        status=status,  # type: ignore[arg-type]
        iteration=iteration,
        limits=GoalLimits(max_iterations=5),
        objective="the tests pass",
    )


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[Start]:
    """Start a registry on `tmp_path/conversations` (after the test stored what it needs)."""
    config = ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(tmp_path / "conversations"),
            "OH_WORKSPACE_PATH": str(tmp_path / "workspaces"),
        }
    )
    pools = Pools.create(4, 4)
    started: list[ConversationRegistry] = []

    async def starter() -> ConversationRegistry:
        registry = ConversationRegistry(config, pools)
        await registry.load_all()
        started.append(registry)
        return registry

    yield starter
    for registry in started:
        await registry.close_all()
    pools.shutdown()


async def test_start_up_reads_summaries_and_opens_nothing(tmp_path: Path, start: Start) -> None:
    ids = [_store(tmp_path, f"task {n}") for n in range(3)]
    registry = await start()
    page, next_page_id = await registry.search(page_id=None, limit=10, status=None)
    info = await registry.info(ids[0])
    assert (registry.count(), registry.open_count, next_page_id) == (3, 0, None)
    assert [item.title for item in page] == ["task 2", "task 1", "task 0"]
    assert info.title == "task 0" and registry.open_count == 0


async def test_a_conversation_opens_on_the_first_request_that_needs_it(
    tmp_path: Path, start: Start
) -> None:
    cid = _store(tmp_path, "hello")
    registry = await start()
    live = await registry.get(cid)
    assert registry.open_count == 1
    assert live.count_events(kind="MessageEvent") == 1


async def test_concurrent_requests_open_a_conversation_once(tmp_path: Path, start: Start) -> None:
    cid = _store(tmp_path, "hello")
    registry = await start()
    first, second = await asyncio.gather(registry.get(cid), registry.get(cid))
    assert first is second and registry.open_count == 1


async def test_a_conversation_left_running_is_reopened_at_start_up_with_run_lost(
    tmp_path: Path, start: Start
) -> None:
    running = ConversationStateUpdateEvent(key="execution_status", value="running")
    cid = _store(tmp_path, "hello", running)
    idle = _store(tmp_path, "idle")
    registry = await start()
    assert registry.find(cid) is not None and registry.find(idle) is None
    live = await registry.get(cid)
    assert live.conversation.state.execution_status == Status.ERROR
    errors = [e for e in live.events if isinstance(e, ConversationErrorEvent)]
    assert [e.code for e in errors] == [RUN_LOST]


async def test_a_goal_left_running_is_recorded_interrupted_at_start_up(
    tmp_path: Path, start: Start
) -> None:
    event = GoalStatusWriter().event(_goal("running", active=True))
    cid = _store(tmp_path, "hello", event)
    registry = await start()
    live = registry.find(cid)
    assert live is not None and live.goal.status is not None
    assert (live.goal.status.status, live.goal.status.reason) == ("interrupted", "server restart")
    assert (await registry.info(cid)).goal == live.goal.status


async def test_a_listing_shows_the_objective_of_a_stored_compact_goal_status(
    tmp_path: Path, start: Start
) -> None:
    writer = GoalStatusWriter()
    first = writer.event(_goal("running", active=True))
    writer.written(first)
    last = writer.event(_goal("complete", active=False, iteration=2))
    assert "objective" not in last.value  # only a reference to the first event
    _store(tmp_path, "hello", first, last)
    registry = await start()
    page, _ = await registry.search(page_id=None, limit=10, status=None)
    assert page[0].goal is not None
    assert (page[0].goal.status, page[0].goal.objective) == ("complete", "the tests pass")
    assert registry.open_count == 0


async def test_search_filters_stored_conversations_by_their_summarized_status(
    tmp_path: Path, start: Start
) -> None:
    paused = ConversationStateUpdateEvent(key="execution_status", value="paused")
    _store(tmp_path, "idle")
    cid = _store(tmp_path, "paused", paused)
    registry = await start()
    page, _ = await registry.search(page_id=None, limit=10, status=Status.PAUSED)
    assert [item.id for item in page] == [cid]
    assert registry.count(Status.PAUSED) == 1 and registry.open_count == 0


async def test_deleting_a_stored_conversation_removes_its_folder_and_default_workspace(
    tmp_path: Path, start: Start
) -> None:
    request = StartConversationRequest(agent=Agent(llm=TestLLM.from_messages([])))
    cid, _ = await (await start()).start(request)
    workspace = tmp_path / "workspaces" / cid.hex
    assert workspace.is_dir()
    registry = await start()  # a second server on the same folder: nothing open
    await registry.delete(cid)
    assert not (tmp_path / "conversations" / cid.hex).exists() and not workspace.exists()
    assert cid not in registry and registry.open_count == 0
    with pytest.raises(NotFoundError):
        await registry.info(cid)


async def test_deleting_keeps_a_working_dir_the_client_chose(tmp_path: Path, start: Start) -> None:
    chosen = tmp_path / "my-project"
    cid = _store(tmp_path, "hello", working_dir=chosen)
    registry = await start()
    await registry.delete(cid)
    assert chosen.is_dir() and not (tmp_path / "conversations" / cid.hex).exists()


async def test_a_conversation_found_damaged_when_opened_is_skipped_and_reported(
    tmp_path: Path, start: Start
) -> None:
    cid = _store(tmp_path, "hello")
    log = tmp_path / "conversations" / cid.hex / "events.jsonl"
    lines = log.read_bytes().split(b"\n")
    log.write_bytes(b"\n".join([lines[0], b"{not an event", *lines[1:]]))
    registry = await start()
    with pytest.raises(NotFoundError, match="damaged"):
        await registry.get(cid)
    assert [b.id for b in registry.broken] == [cid.hex]
    assert registry.count() == 0
