"""GoalDriver against a stand-in host: exit paths and budgets, with no server or threads."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from openhands.agent_server.errors import BadRequestError, ConflictError
from openhands.agent_server.goals.driver import GoalDriver, GoalPhase
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.conversation.goal import GoalLimitsChange, GoalRequest
from openhands.sdk.event import ConversationStateUpdateEvent, Event

from .stand_in import Host, judge

T = TypeVar("T")
Status = ConversationExecutionStatus


def _goal(objective: str, **limits: Any) -> GoalRequest:
    return GoalRequest.checked(objective=objective, **limits)


_judge = judge


async def _finish(driver: GoalDriver) -> None:
    assert driver.task is not None
    await asyncio.wait_for(asyncio.wait({driver.task}), timeout=10)


async def test_a_judge_call_that_raises_ends_interrupted_with_the_error() -> None:
    host = Host()
    host.blocking_error = RuntimeError("judge thread exploded")
    driver = GoalDriver(host)
    await driver.start(_goal("objective"), judge_llm=_judge())
    await _finish(driver)
    last = host.goal_statuses()[-1]
    assert (last["status"], last["active"]) == ("interrupted", False)
    assert "judge thread exploded" in last["error"]
    assert driver.outcome is not None and driver.outcome.status == "interrupted"


async def test_a_failed_final_write_still_leaves_the_chip_inactive() -> None:
    host = Host()
    host.fail_append_after = 1  # the start status is written, nothing after it
    driver = GoalDriver(host)
    await driver.start(_goal("objective"), judge_llm=_judge('{"complete": true, "score": 1}'))
    await _finish(driver)
    assert driver.status is not None
    assert (driver.status.status, driver.status.active) == ("interrupted", False)


async def test_the_time_limit_pauses_the_agent_and_caps_the_goal() -> None:
    host = Host(wait_for_pause=True)
    driver = GoalDriver(host)
    await driver.start(
        _goal("objective", time_limit=0.05), judge_llm=_judge('{"complete": false, "score": 0.1}')
    )
    await _finish(driver)
    last = host.goal_statuses()[-1]
    assert last["status"] == "capped"
    assert "time limit" in last["reason"]


async def test_a_user_pause_interrupts_the_goal() -> None:
    host = Host(wait_for_pause=True)
    driver = GoalDriver(host)
    await driver.start(_goal("objective"), judge_llm=_judge())
    await asyncio.sleep(0)
    host.request_pause()
    await _finish(driver)
    last = host.goal_statuses()[-1]
    assert (last["status"], last["reason"], last["error"]) == (
        "interrupted",
        "conversation paused",
        None,
    )


async def test_start_while_active_is_a_conflict() -> None:
    host = Host(wait_for_pause=True)
    driver = GoalDriver(host)
    await driver.start(_goal("objective"), judge_llm=_judge())
    with pytest.raises(ConflictError):
        await driver.start(_goal("again"), judge_llm=_judge())
    await driver.stop()
    assert host.goal_statuses()[-1]["reason"] == "stopped by user"


async def test_stop_right_after_start_records_interrupted() -> None:
    host = Host(wait_for_pause=True)
    driver = GoalDriver(host)
    await driver.start(_goal("objective"), judge_llm=_judge())
    await driver.stop()
    assert [v["status"] for v in host.goal_statuses()] == ["running", "interrupted"]


async def test_resume_continues_from_the_recorded_iteration() -> None:
    host = Host(wait_for_pause=True)
    host.instant_runs = 1  # round 1 ends at once and is judged; round 2 waits
    driver = GoalDriver(host)
    await driver.start(
        _goal("objective", max_iterations=3),
        judge_llm=_judge('{"complete": false, "missing": ["x"]}'),
    )
    await asyncio.wait_for(
        _until(lambda: any(v["iteration"] == 1 for v in host.goal_statuses())), timeout=10
    )
    await driver.stop()
    assert driver.status is not None
    assert (driver.status.status, driver.status.iteration) == ("interrupted", 1)
    host.paused.clear()
    host.instant_runs = 1
    await driver.resume(judge_llm=_judge('{"complete": true, "score": 1}'))
    await _finish(driver)
    last = host.goal_statuses()[-1]
    assert (last["status"], last["iteration"]) == ("complete", 2)


async def _until(check: Callable[[], bool]) -> None:
    while not check():
        await asyncio.sleep(0.001)


async def test_resume_without_an_interrupted_goal_is_a_bad_request() -> None:
    with pytest.raises(BadRequestError):
        await GoalDriver(Host()).resume()


async def test_restart_recovery_marks_a_running_goal_interrupted() -> None:
    host = Host()
    host.events.append(
        ConversationStateUpdateEvent(
            key="goal",
            value={
                "active": True,
                "status": "running",
                "iteration": 1,
                "max_iterations": 3,
                "objective": "o",
            },
        )
    )
    driver = GoalDriver(host)
    driver.load_status()
    event = driver.recover_after_restart()
    assert event is not None
    assert (event.value["status"], event.value["reason"]) == ("interrupted", "server restart")
    assert driver.status is not None and driver.status.iteration == 1


async def test_restart_recovery_leaves_an_ended_goal_alone() -> None:
    host = Host()
    host.events.append(
        ConversationStateUpdateEvent(
            key="goal",
            value={
                "active": False,
                "status": "complete",
                "iteration": 1,
                "max_iterations": 3,
                "objective": "o",
            },
        )
    )
    driver = GoalDriver(host)
    driver.load_status()
    assert driver.recover_after_restart() is None


async def test_a_start_whose_first_status_cannot_be_written_raises_and_runs_nothing() -> None:
    host = Host()
    host.fail_append_after = 0  # the disk refuses the `running` status
    driver = GoalDriver(host)
    with pytest.raises(OSError, match="disk full"):
        await driver.start(_goal("objective"), judge_llm=_judge())
    await asyncio.sleep(0)
    assert (driver.phase, driver.status, host.runs) == (GoalPhase.IDLE, None, 0)
    assert host.goal_statuses() == [] and host.registered == []


async def test_the_judge_is_registered_with_the_conversation_once_the_goal_runs() -> None:
    host = Host()
    judge = _judge('{"complete": true, "score": 1}')
    driver = GoalDriver(host)
    await driver.start(_goal("objective"), judge_llm=judge)
    await _finish(driver)
    assert host.registered == [judge]


async def test_the_default_judge_is_one_llm_across_goals() -> None:
    host = Host()
    host.agent_llm = _judge('{"complete": true, "score": 1}', '{"complete": true, "score": 1}')
    driver = GoalDriver(host)
    for objective in ("first", "second"):
        await driver.start(_goal(objective))
        await _finish(driver)
    assert len(host.registered) == 2 and host.registered[0] is host.registered[1]
    assert host.registered[0].usage_id == "goal-judge"


async def test_a_discarded_goal_records_nothing_more() -> None:
    host = Host(wait_for_pause=True)
    driver = GoalDriver(host)
    await driver.start(_goal("objective"), judge_llm=_judge())
    await driver.discard()
    assert not driver.active
    assert [v["status"] for v in host.goal_statuses()] == ["running"]


async def test_the_drivers_phase_follows_the_goal_from_start_to_its_recorded_end() -> None:
    host = Host(wait_for_pause=True)
    driver = GoalDriver(host)
    assert driver.phase == GoalPhase.IDLE and not driver.active
    starting = asyncio.ensure_future(driver.start(_goal("objective"), judge_llm=_judge()))
    await asyncio.sleep(0)  # the start has claimed the goal; its first status is being written
    assert driver.phase == GoalPhase.STARTING and driver.active
    await starting
    assert driver.phase == GoalPhase.RUNNING
    stopping = asyncio.ensure_future(driver.interrupt("user message"))
    await asyncio.sleep(0)
    assert driver.phase == GoalPhase.STOPPING and driver.active
    await stopping
    assert driver.phase == GoalPhase.IDLE and not driver.active
    assert host.goal_statuses()[-1]["reason"] == "user message"


async def test_a_resume_sent_as_the_capped_status_appears_waits_for_the_run_to_end() -> None:
    """A client acting on the final status it just saw is not told a goal is running."""
    resumed: list[asyncio.Task[None]] = []

    class Watched(Host):
        async def append_event(self, event: Event) -> None:
            await super().append_event(event)
            driver.on_event(event)  # as the server's host does, before any socket sends it
            value = event.value if isinstance(event, ConversationStateUpdateEvent) else None
            if isinstance(value, dict) and value.get("status") == "capped" and not resumed:
                limits = GoalLimitsChange(max_iterations=3)
                resumed.append(asyncio.ensure_future(driver.resume(limits=limits)))
                for _ in range(5):  # the resume runs as far as it can before this returns
                    await asyncio.sleep(0)

    host = Watched()
    driver = GoalDriver(host)
    await driver.start(_goal("objective", max_iterations=1), judge_llm=_judge())
    await _finish(driver)
    assert resumed, "the goal did not reach `capped`"
    await asyncio.wait_for(resumed[0], timeout=10)  # no ConflictError
    assert driver.active
    await _finish(driver)
    assert host.goal_statuses()[-1]["max_iterations"] == 3
