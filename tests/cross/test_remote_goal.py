"""The goal API of RemoteConversation against a real server and a scripted judge."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from live_server import Models, make_llm
from openhands.sdk.conversation.goal import GoalLimitsChange, InvalidGoalError, last_goal_status
from openhands.sdk.event import ConversationStateUpdateEvent
from openhands.sdk.remote import RemoteConversation, RemoteRequestError
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from waits import EVENT_WAIT


def judge_says(complete: bool) -> Callable[[dict[str, Any]], FakeReply]:
    verdict = {
        "score": 1.0 if complete else 0.2,
        "complete": complete,
        "missing": [] if complete else ["proof"],
        "requirements": [{"text": "it is done", "satisfied": complete, "evidence": "reply"}],
    }
    return lambda _body: FakeReply.text(json.dumps(verdict))


def test_goal_status_is_none_before_any_goal(conversation: RemoteConversation) -> None:
    assert conversation.goal_status() is None


def test_wait_for_goal_without_a_goal_says_to_start_one(
    conversation: RemoteConversation,
) -> None:
    with pytest.raises(ValueError, match="start_goal"):
        conversation.wait_for_goal(timeout=5)


def test_goal_reaches_complete(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.set_responder(models.agent, lambda _body: FakeReply.text("done, with proof"))
    fake_llm.set_responder(models.judge, judge_says(complete=True))
    judge = make_llm(fake_llm, models.judge, usage_id="goal-judge")
    conversation.start_goal("say it is done", max_iterations=3, judge_llm=judge)
    status = conversation.wait_for_goal(timeout=EVENT_WAIT)
    assert (status.status, status.active, status.iteration) == ("complete", False, 1)
    assert status.verdict is not None and status.verdict.complete


def test_goal_status_events_reach_the_mirror(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.set_responder(models.agent, lambda _body: FakeReply.text("done"))
    fake_llm.set_responder(models.judge, judge_says(complete=True))
    judge = make_llm(fake_llm, models.judge, usage_id="goal-judge")
    conversation.start_goal("say it is done", judge_llm=judge)
    conversation.wait_for_goal(timeout=EVENT_WAIT)
    goal_events = [
        event.value["status"]
        for event in conversation.state.events
        if isinstance(event, ConversationStateUpdateEvent) and event.key == "goal"
    ]
    assert goal_events[0] == "running" and goal_events[-1] == "complete"


def test_stop_goal_interrupts_and_resume_completes(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.set_responder(models.agent, lambda _body: FakeReply.text("working").delayed(0.5))
    fake_llm.set_responder(models.judge, judge_says(complete=False))
    judge = make_llm(fake_llm, models.judge, usage_id="goal-judge")
    conversation.start_goal("finish the work", max_iterations=50, judge_llm=judge)
    conversation.stop_goal()
    stopped = conversation.wait_for_goal(timeout=EVENT_WAIT)
    assert (stopped.status, stopped.active) == ("interrupted", False)

    fake_llm.set_responder(models.judge, judge_says(complete=True))
    conversation.resume_goal()
    resumed = conversation.wait_for_goal(timeout=EVENT_WAIT)
    assert resumed.status == "complete"
    assert resumed.objective == "finish the work"


def test_a_capped_goal_continues_with_new_limits(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.set_responder(models.agent, lambda _body: FakeReply.text("working"))
    fake_llm.set_responder(models.judge, judge_says(complete=False))
    judge = make_llm(fake_llm, models.judge, usage_id="goal-judge")
    conversation.start_goal("finish the work", max_iterations=1, judge_llm=judge)
    assert conversation.wait_for_goal(timeout=EVENT_WAIT).status == "capped"
    with pytest.raises(RemoteRequestError, match="new limits"):
        conversation.resume_goal()
    with pytest.raises(RemoteRequestError, match="more than the 1 rounds"):
        conversation.resume_goal(GoalLimitsChange(max_iterations=1))

    fake_llm.set_responder(models.judge, judge_says(complete=True))
    conversation.resume_goal(GoalLimitsChange(max_iterations=4))
    done = conversation.wait_for_goal(timeout=EVENT_WAIT)
    assert (done.status, done.iteration, done.max_iterations) == ("complete", 2, 4)


def test_a_negative_budget_is_refused_before_any_request(
    conversation: RemoteConversation,
) -> None:
    with pytest.raises(InvalidGoalError, match="max_cost"):
        conversation.start_goal("say it is done", max_cost=-1)
    assert conversation.goal_status() is None


def test_a_zero_budget_means_unlimited_on_the_server_too(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.set_responder(models.agent, lambda _body: FakeReply.text("done"))
    fake_llm.set_responder(models.judge, judge_says(complete=True))
    judge = make_llm(fake_llm, models.judge, usage_id="goal-judge")
    conversation.start_goal("say it is done", judge_llm=judge, max_cost=0, time_limit=0)
    status = conversation.wait_for_goal(timeout=EVENT_WAIT)
    assert (status.status, status.max_cost, status.time_limit) == ("complete", None, None)


def test_the_mirrored_goal_events_rebuild_the_full_status(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.set_responder(models.agent, lambda _body: FakeReply.text("done"))
    fake_llm.set_responder(models.judge, judge_says(complete=True))
    judge = make_llm(fake_llm, models.judge, usage_id="goal-judge")
    conversation.start_goal("say it is done", judge_llm=judge)
    conversation.wait_for_goal(timeout=EVENT_WAIT)
    # The REST status may be read a moment before the socket delivers the same event.
    deadline = time.monotonic() + 10
    mirrored = last_goal_status(conversation.state.events)
    while (mirrored is None or mirrored.active) and time.monotonic() < deadline:
        time.sleep(0.02)
        mirrored = last_goal_status(conversation.state.events)
    assert mirrored is not None
    assert (mirrored.status, mirrored.objective) == ("complete", "say it is done")
