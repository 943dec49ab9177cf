"""run_goal snapshots the workspace at the goal's start and after each judged round (the
controller's TakeCheckpoint steps); a conversation that keeps no snapshots runs its goal all
the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from goal_helpers import GoalConversation, finish, judge_json, user_texts
from openhands.sdk.conversation.checkpointing import CHECKPOINT_KEY
from openhands.sdk.conversation.goal import (
    GoalLimitsChange,
    GoalStatus,
    GoalStop,
    resume_goal,
    run_goal,
)
from openhands.sdk.event import ConversationStateUpdateEvent
from openhands.sdk.testing import TestLLM
from openhands.sdk.workspace.checkpoints import Checkpoint


def _checkpoints(conversation: object) -> list[Checkpoint]:
    events = conversation.state.events  # type: ignore[attr-defined]
    return [
        Checkpoint.model_validate(event.value)
        for event in events
        if isinstance(event, ConversationStateUpdateEvent) and event.key == CHECKPOINT_KEY
    ]


def test_each_round_is_snapshot_with_its_own_changes(
    goal_conversation: GoalConversation, workspace_dir: Path
) -> None:
    (workspace_dir / "before.txt").write_text("there before the goal\n")
    conversation = goal_conversation([finish("one"), finish("two")], persist=True)

    def on_status(status: GoalStatus) -> None:
        if status.phase == "judging":  # the round's work, before its end is snapshot
            (workspace_dir / f"r{status.iteration + 1}.txt").write_text("work\n")

    judge = TestLLM.from_messages(
        [judge_json(0.5, False, ["r2"]), judge_json(1.0, True)], usage_id="judge"
    )
    outcome = run_goal(conversation, "Write r1 and r2", judge, on_status=on_status)

    assert outcome.status == "complete"
    taken = _checkpoints(conversation)
    assert [(c.label, c.goal_round) for c in taken] == [
        ("goal start", 0),
        ("round 1", 1),
        ("round 2", 2),
    ]
    assert [c.path for c in taken[0].changes] == ["before.txt"]
    assert [c.path for c in taken[1].changes] == ["r1.txt"]
    assert [c.path for c in taken[2].changes] == ["r2.txt"]
    whole = conversation.checkpoint_diff(taken[2].id, taken[0].id)
    assert sorted(f.path for f in whole.files) == ["r1.txt", "r2.txt"]
    # The final status comes after the last round's snapshot.
    keys = [
        e.key
        for e in conversation.state.events
        if isinstance(e, ConversationStateUpdateEvent) and e.key in ("goal", CHECKPOINT_KEY)
    ]
    assert keys[-2:] == [CHECKPOINT_KEY, "goal"]


def test_a_resumed_goal_snapshots_where_it_resumes_from(
    goal_conversation: GoalConversation, workspace_dir: Path
) -> None:
    conversation = goal_conversation([finish("one"), finish("two")], persist=True)
    judge = TestLLM.from_messages(
        [judge_json(0.5, False, ["more"]), judge_json(1.0, True)], usage_id="judge"
    )
    assert run_goal(conversation, "Do it", judge, max_iterations=1).status == "capped"
    (workspace_dir / "between.txt").write_text("a person's edit\n")

    outcome = resume_goal(conversation, judge, limits=GoalLimitsChange(max_iterations=2))

    assert outcome.status == "complete"
    taken = _checkpoints(conversation)
    assert [(c.label, c.goal_round) for c in taken] == [
        ("goal start", 0),
        ("round 1", 1),
        ("goal resumed", None),
        ("round 2", 2),
    ]
    assert [c.path for c in taken[2].changes] == ["between.txt"]  # not round 2's work


def test_a_conversation_that_keeps_no_snapshots_runs_its_goal_anyway(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish("one")])  # not persisted: no snapshot store
    judge = TestLLM.from_messages([judge_json(1.0, True)], usage_id="judge")
    outcome = run_goal(conversation, "Do it", judge, stop=GoalStop())
    assert outcome.status == "complete"
    assert _checkpoints(conversation) == []


def test_a_goal_resumed_after_a_rewind_tells_the_agent_its_files_went_back(
    goal_conversation: GoalConversation, workspace_dir: Path
) -> None:
    conversation = goal_conversation([finish("one"), finish("two")], persist=True)

    def on_status(status: GoalStatus) -> None:
        if status.phase == "judging":
            (workspace_dir / "made.txt").write_text("round 1's work\n")

    judge = TestLLM.from_messages(
        [judge_json(0.5, False, ["more"]), judge_json(1.0, True)], usage_id="judge"
    )
    run_goal(conversation, "Do it", judge, max_iterations=1, on_status=on_status)
    start = _checkpoints(conversation)[0]
    conversation.rewind(start.id)
    assert not (workspace_dir / "made.txt").exists()

    resume_goal(conversation, judge, limits=GoalLimitsChange(max_iterations=2))

    resumed = user_texts(list(conversation.state.events))[1]
    assert "The workspace was rewound to the snapshot 'goal start' since" in resumed


def test_a_conversation_that_said_it_keeps_no_snapshots_is_not_asked_every_round(
    goal_conversation: GoalConversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OH_CHECKPOINTS", "0")  # switched off: the store says so on each ask
    conversation = goal_conversation([finish("one"), finish("two"), finish("three")], persist=True)
    asked: list[str] = []
    real = conversation.checkpoint

    def counted(label: str, **kwargs: object) -> Checkpoint:
        asked.append(label)
        return real(label, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(conversation, "checkpoint", counted)
    judge = TestLLM.from_messages(
        [judge_json(0.2, False), judge_json(0.5, False), judge_json(1.0, True)], usage_id="judge"
    )
    outcome = run_goal(conversation, "Do it", judge, stop=GoalStop())
    assert outcome.status == "complete" and outcome.iterations == 3
    assert asked == ["goal start"] and _checkpoints(conversation) == []
