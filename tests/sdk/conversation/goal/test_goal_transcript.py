"""The judge's transcript: bounded by a character budget and rendered incrementally."""

from __future__ import annotations

from goal_helpers import agent_event, sample_history, tool_events, user_event
from openhands.sdk import AgentErrorEvent, ConversationErrorEvent, Event
from openhands.sdk.conversation import InMemoryEventLog
from openhands.sdk.conversation.goal import render_transcript
from openhands.sdk.conversation.goal.transcript import OMITTED_MARKER, TranscriptWindow


class CountingLog(InMemoryEventLog):
    """An in-memory event log that counts how many events were read through `read`."""

    def __init__(self) -> None:
        super().__init__()
        self.events_read = 0

    def read(self, start: int = 0, stop: int | None = None) -> list[Event]:
        events = super().read(start, stop)
        self.events_read += len(events)
        return events


def test_long_observations_are_truncated_with_a_marker() -> None:
    output = "HEAD" + "x" * 50_000 + "TAIL"
    transcript = render_transcript(
        tool_events("terminal", {"command": "pytest"}, output, "c1"), entry_chars=2_000
    )
    assert "characters truncated" in transcript
    assert "HEAD" in transcript and "TAIL" in transcript
    assert len(transcript) < 2_200


def test_transcript_stays_under_its_budget_and_keeps_the_newest_events() -> None:
    events: list[Event] = [user_event("the objective")]
    events += [agent_event(f"message {i} " + "y" * 500) for i in range(200)]
    transcript = render_transcript(events, max_chars=5_000)
    assert len(transcript) <= 5_000
    assert transcript.startswith(OMITTED_MARKER)
    assert "message 199" in transcript
    assert "message 0 " not in transcript


def test_a_short_history_is_not_marked_as_truncated() -> None:
    transcript = render_transcript(sample_history())
    assert OMITTED_MARKER not in transcript
    assert transcript.splitlines()[0] == "user: Create hello.txt"


def test_update_renders_only_the_events_added_since_the_last_round() -> None:
    log = CountingLog()
    window = TranscriptWindow(max_chars=4_000)
    for round_number in range(100):
        log.append(user_event(f"round {round_number}"))
        log.append(agent_event("z" * 300))
        window.update(log)
    # Each event is read about once (plus one anchor check per round), not once per round.
    assert log.events_read <= 2 * len(log) + 100


def test_a_long_history_seen_for_the_first_time_is_read_from_the_end_only() -> None:
    log = CountingLog()
    for i in range(5_000):
        log.append(agent_event(f"event {i} " + "w" * 200))
    transcript = TranscriptWindow(max_chars=3_000).update(log)
    assert "event 4999" in transcript
    assert log.events_read < 200


def test_the_window_matches_a_fresh_render_after_many_updates() -> None:
    events: list[Event] = []
    window = TranscriptWindow(max_chars=2_000)
    for i in range(60):
        events.append(user_event(f"ask {i}"))
        events.extend(tool_events("terminal", {"command": f"echo {i}"}, f"out {i}" * 20, f"c{i}"))
        incremental = window.update(events)
    assert incremental == render_transcript(events, max_chars=2_000)


def test_a_different_history_resets_the_window() -> None:
    window = TranscriptWindow()
    window.update([user_event("first conversation"), agent_event("a")])
    transcript = window.update([user_event("second conversation"), agent_event("b")])
    assert "first conversation" not in transcript
    assert "second conversation" in transcript


def test_tool_errors_and_conversation_errors_are_kept() -> None:
    transcript = render_transcript(
        [
            AgentErrorEvent(tool_name="terminal", tool_call_id="c", error="bad arguments"),
            ConversationErrorEvent(code="MaxIterationsReached", detail="too many steps"),
        ]
    )
    assert "tool (terminal) [error]: bad arguments" in transcript
    assert "error: MaxIterationsReached: too many steps" in transcript
