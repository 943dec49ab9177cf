"""What `openhands-goal` says about the workspace: a line per round's snapshot, the goal's span
for `--diff`, and the flags that go with them."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import Any

import pytest
from openhands.sdk.workspace.checkpoints import Checkpoint, FileChange
from openhands.tools.cli.changes import checkpoint_line, goal_span
from openhands.tools.cli.goal import parse_options
from openhands.tools.cli.options import GoalCommandError
from openhands.tools.cli.views import PlainView


def _checkpoint(number: int, goal_round: int | None, **fields: Any) -> Checkpoint:
    return Checkpoint(
        id=f"{number:040x}",
        label=f"c{number}",
        created_at=datetime.now(UTC),
        goal_round=goal_round,
        **fields,
    )


def test_a_rounds_line_names_the_files_and_the_snapshot() -> None:
    changes = [
        FileChange(path="a.py", change="added"),
        FileChange(path="b.py", change="modified"),
    ]
    checkpoint = _checkpoint(0xABC, 2, changed=2, changes=changes)

    line = checkpoint_line(checkpoint)

    assert (
        line
        == f"round 2 changed 2 files (snapshot {checkpoint.id[:8]}): a.py (added), b.py (modified)"
    )


def test_a_long_list_is_cut_with_a_count() -> None:
    changes = [FileChange(path=f"f{i}.py", change="added") for i in range(10)]

    line = checkpoint_line(_checkpoint(1, 1, changed=30, changes=changes))

    assert line is not None and line.endswith("f7.py (added) and 22 more")


def test_the_goals_start_and_other_snapshots() -> None:
    assert "at the goal's start" in (checkpoint_line(_checkpoint(1, 0, changed=9)) or "")
    assert checkpoint_line(_checkpoint(1, None)) is None  # not a goal's
    assert (
        checkpoint_line(_checkpoint(1, 1, changed=1))
        == f"round 1 changed 1 file (snapshot {'0' * 8})"
    )


def test_the_goal_span_is_the_newest_goals_start_to_its_newest_round() -> None:
    old = [_checkpoint(1, 0), _checkpoint(2, 1)]
    new_start, new_one, by_hand, new_two = (
        _checkpoint(3, 0),
        _checkpoint(4, 1),
        _checkpoint(5, None),
        _checkpoint(6, 2),
    )

    assert goal_span([*old, new_start, new_one, by_hand, new_two]) == (new_start, new_two)
    assert goal_span([*old, new_start]) is None  # no round of the new goal yet
    assert goal_span([]) is None


def test_plain_view_prints_a_diff_after_its_title() -> None:
    out = io.StringIO()
    view = PlainView(out)

    view.diff("the goal changed 1 file (+1 -0):", "+hello\n")

    assert out.getvalue() == "the goal changed 1 file (+1 -0):\n+hello\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["greet", "--diff", "--json"], "leave out --json"),
        (["greet", "--rewind", "abcdef12"], "give it alone, or with --resume"),
        (["--rewind", "abcdef12", "--server", "http://127.0.0.1:1"], "needs --conversation-id"),
    ],
)
def test_flags_that_do_not_go_together(argv: list[str], message: str) -> None:
    with pytest.raises(GoalCommandError, match=message):
        parse_options(argv)


def test_rewind_alone_needs_no_objective() -> None:
    options = parse_options(["--rewind", "abcdef12"])

    assert options.rewind == "abcdef12" and options.objective is None
