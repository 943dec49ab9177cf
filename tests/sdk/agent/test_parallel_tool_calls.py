"""`tool_concurrency_limit`: the calls of one reply run at the same time, up to the limit,
and their results are recorded in the reply's order."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from openhands.sdk import (
    Action,
    Agent,
    AgentErrorEvent,
    LocalConversation,
    Message,
    MessageToolCall,
    Observation,
    ObservationEvent,
    Tool,
    ToolDefinition,
    UserRejectObservation,
    register_tool,
)
from openhands.sdk.agent import DeclaredResources
from openhands.sdk.hooks import HookConfig
from openhands.sdk.testing import TestLLM
from pydantic import Field


class Meeting:
    """Where calls wait for each other: `size` calls must be inside at once to pass."""

    def __init__(self, size: int, timeout: float = 5.0) -> None:
        self.barrier = threading.Barrier(size, timeout=timeout)
        self.lock = threading.Lock()
        self.active = 0
        self.peak = 0
        self.finished: list[str] = []
        self.events: dict[str, threading.Event] = {}

    def event(self, name: str) -> threading.Event:
        with self.lock:
            return self.events.setdefault(name, threading.Event())


class MeetAction(Action):
    """Arguments of the meeting tools."""

    label: str = ""
    wait_for: str = Field(default="", description="Finish only after this label finished.")
    fail: bool = False


class _MeetingTool(ToolDefinition):
    action_type = MeetAction
    meeting: ClassVar[Meeting]  # set by the fixture (tools are built by their class)

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        meeting = _MeetingTool.meeting
        with meeting.lock:
            meeting.active += 1
            meeting.peak = max(meeting.peak, meeting.active)
        try:
            if action.fail:
                raise RuntimeError(f"{action.label} broke")
            if action.wait_for:
                if not meeting.event(action.wait_for).wait(5):
                    return Observation.from_text(f"{action.wait_for} never finished", is_error=True)
                met = "waited"
            else:
                try:
                    meeting.barrier.wait()
                    met = "met"
                except threading.BrokenBarrierError:
                    met = "alone"
            return Observation.from_text(f"{action.label} {met}")
        finally:
            with meeting.lock:
                meeting.active -= 1
                meeting.finished.append(action.label)
            meeting.event(action.label).set()


class MeetTool(_MeetingTool):
    """Declares that its calls share nothing, so they may all run at once."""

    def declared_resources(self, action: Any) -> DeclaredResources:
        return DeclaredResources(keys=(), declared=True)


class SoloTool(_MeetingTool):
    """Declares nothing, so its calls take turns."""


@pytest.fixture
def meeting() -> Iterator[Meeting]:
    """A fresh meeting behind the `meet` and `solo` tools (barrier of 3 unless resized)."""
    place = Meeting(3)
    _MeetingTool.meeting = place
    register_tool("meet", MeetTool)
    register_tool("solo", SoloTool)
    yield place
    place.barrier.abort()


def _calls(*calls: tuple[str, dict[str, Any]]) -> Message:
    return Message(
        role="assistant",
        tool_calls=[
            MessageToolCall(id=f"c{index}", name=name, arguments=json.dumps(args))
            for index, (name, args) in enumerate(calls)
        ],
    )


def _finish() -> Message:
    return Message(
        role="assistant",
        tool_calls=[MessageToolCall(id="f", name="finish", arguments='{"message": "ok"}')],
    )


def _run(
    workspace_dir, reply: Message, *, limit: int, tools=("meet",), **kwargs: Any
) -> LocalConversation:
    llm = TestLLM.from_messages([reply, _finish()])
    agent = Agent(llm=llm, tools=[Tool(name=name) for name in tools], tool_concurrency_limit=limit)
    conversation = LocalConversation(agent, workspace_dir, **kwargs)
    conversation.send_message("go")
    conversation.run()
    return conversation


def _results(conversation: LocalConversation) -> list[tuple[str, str]]:
    answers = (ObservationEvent, AgentErrorEvent, UserRejectObservation)
    found = []
    for event in conversation.state.events:
        if isinstance(event, ObservationEvent) and event.tool_name != "finish":
            found.append((event.tool_call_id, event.text))
        elif isinstance(event, answers) and not isinstance(event, ObservationEvent):
            found.append((event.tool_call_id, event.kind))
    return found


def test_calls_of_one_reply_run_at_the_same_time(workspace_dir, meeting: Meeting) -> None:
    reply = _calls(*[("meet", {"label": name}) for name in ("a", "b", "c")])

    conversation = _run(workspace_dir, reply, limit=3)

    assert _results(conversation) == [("c0", "a met"), ("c1", "b met"), ("c2", "c met")]
    conversation.close()


def test_no_more_calls_run_at_once_than_the_limit(workspace_dir, meeting: Meeting) -> None:
    meeting.barrier = threading.Barrier(2, timeout=5)
    reply = _calls(*[("meet", {"label": str(i)}) for i in range(4)])

    conversation = _run(workspace_dir, reply, limit=2)

    assert [text for _, text in _results(conversation)] == ["0 met", "1 met", "2 met", "3 met"]
    assert meeting.peak == 2
    conversation.close()


def test_results_are_recorded_in_call_order_whatever_order_they_end_in(
    workspace_dir, meeting: Meeting
) -> None:
    reply = _calls(
        ("meet", {"label": "first", "wait_for": "second"}),
        ("meet", {"label": "second", "wait_for": "third"}),
        ("meet", {"label": "third", "wait_for": "nobody-started"}),
    )
    meeting.event("nobody-started").set()

    conversation = _run(workspace_dir, reply, limit=3)

    assert meeting.finished == ["third", "second", "first"]
    assert _results(conversation) == [
        ("c0", "first waited"),
        ("c1", "second waited"),
        ("c2", "third waited"),
    ]
    conversation.close()


def test_calls_of_a_tool_that_declares_nothing_take_turns(workspace_dir, meeting: Meeting) -> None:
    meeting.barrier = threading.Barrier(2, timeout=0.3)
    reply = _calls(("solo", {"label": "x"}), ("solo", {"label": "y"}))

    conversation = _run(workspace_dir, reply, limit=4, tools=("solo",))

    assert meeting.peak == 1
    assert [text for _, text in _results(conversation)] == ["x alone", "y alone"]
    conversation.close()


def test_the_default_limit_runs_calls_one_after_another(workspace_dir, meeting: Meeting) -> None:
    meeting.barrier = threading.Barrier(2, timeout=0.3)
    reply = _calls(("meet", {"label": "x"}), ("meet", {"label": "y"}))

    conversation = _run(workspace_dir, reply, limit=1)

    assert meeting.peak == 1
    assert [text for _, text in _results(conversation)] == ["x alone", "y alone"]
    conversation.close()


def test_a_failing_call_is_an_error_in_its_place_and_the_others_still_run(
    workspace_dir, meeting: Meeting
) -> None:
    meeting.barrier = threading.Barrier(2, timeout=5)
    reply = _calls(
        ("meet", {"label": "a"}),
        ("meet", {"label": "boom", "fail": True}),
        ("meet", {"label": "b"}),
    )

    conversation = _run(workspace_dir, reply, limit=3)

    assert _results(conversation) == [
        ("c0", "a met"),
        ("c1", "AgentErrorEvent"),
        ("c2", "b met"),
    ]
    error = next(e for e in conversation.state.events if isinstance(e, AgentErrorEvent))
    assert "boom broke" in error.error
    conversation.close()


def test_a_call_a_pre_tool_use_hook_rejects_does_not_run_and_keeps_its_place(
    workspace_dir, meeting: Meeting
) -> None:
    meeting.barrier = threading.Barrier(2, timeout=5)
    reply = _calls(
        ("meet", {"label": "a"}),
        ("meet", {"label": "forbidden"}),
        ("meet", {"label": "b"}),
    )
    hooks = HookConfig.model_validate(
        {
            "pre_tool_use": [
                {
                    "matcher": "meet",
                    "hooks": [{"command": "grep -q forbidden && { echo no >&2; exit 2; }; exit 0"}],
                }
            ]
        }
    )

    conversation = _run(workspace_dir, reply, limit=3, hook_config=hooks)

    assert _results(conversation) == [
        ("c0", "a met"),
        ("c1", "UserRejectObservation"),
        ("c2", "b met"),
    ]
    assert "forbidden" not in meeting.finished
    conversation.close()


def test_an_unknown_tool_among_parallel_calls_gets_an_error_in_its_place(
    workspace_dir, meeting: Meeting
) -> None:
    meeting.barrier = threading.Barrier(2, timeout=5)
    reply = _calls(("meet", {"label": "a"}), ("nope", {}), ("meet", {"label": "b"}))

    conversation = _run(workspace_dir, reply, limit=3)

    assert _results(conversation) == [
        ("c0", "a met"),
        ("c1", "AgentErrorEvent"),
        ("c2", "b met"),
    ]
    conversation.close()
