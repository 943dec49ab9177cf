"""`openhands-goal` shows the work itself: a line per round of the files it changed (from the
goal's real snapshots), `--diff` prints the goal's whole diff after the end line, and
`--rewind SNAPSHOT` puts the workspace back to a round's snapshot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from goal_process import run_goal_command
from openhands.sdk.testing import DemoScript, FakeOpenAIServer
from openhands.sdk.testing.demo_script import DEMO_FILE, DEMO_TEST

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    """The demo script: round 1 writes DEMO_FILE, round 2 its test; the judge completes it."""
    with FakeOpenAIServer() as server:
        server.set_responder("*", DemoScript())
        yield server


def _snapshot_of(lines: list[str], prefix: str) -> str:
    line = next(line for line in lines if line.startswith(prefix))
    return line.split("(snapshot ")[1].split(")")[0]


def test_round_lines_and_the_whole_diff_then_a_rewind_to_round_one(
    fake: FakeOpenAIServer, workspace_dir: Path
) -> None:
    code, lines, _ = run_goal_command(fake, workspace_dir, "greet the world", "--diff", "--plain")

    assert code == 0
    assert any(line.startswith("snapshot ") and "at the goal's start" in line for line in lines)
    assert any(
        line.startswith("round 1 changed 1 file (snapshot ") and f"{DEMO_FILE} (added)" in line
        for line in lines
    )
    assert any(
        line.startswith("round 2 changed 1 file (snapshot ") and f"{DEMO_TEST} (added)" in line
        for line in lines
    )
    end = next(i for i, line in enumerate(lines) if line.startswith("goal complete after 2"))
    after = lines[end + 1 :]
    assert after[0] == "the goal changed 2 files (+23 -0):"
    assert f"+++ b/{DEMO_FILE}" in after and f"+++ b/{DEMO_TEST}" in after

    round_one = _snapshot_of(lines, "round 1 changed")
    code, rewound, err = run_goal_command(fake, workspace_dir, "--rewind", round_one, "--plain")

    assert code == 0, err
    assert (workspace_dir / DEMO_FILE).is_file()
    assert not (workspace_dir / DEMO_TEST).exists()
    assert any(
        line.startswith(f"workspace rewound to snapshot {round_one} (round 1): ")
        and "1 deleted" in line
        for line in rewound
    )
    # The goal was complete: what follows a rewind is a new goal, not a resume.
    assert any(line.startswith("start a goal from there with: ") for line in rewound), rewound


def test_diff_and_json_do_not_go_together(fake: FakeOpenAIServer, workspace_dir: Path) -> None:
    code, lines, err = run_goal_command(fake, workspace_dir, "x", "--diff", "--json")
    assert (code, lines) == (2, [])
    assert "--diff prints text: leave out --json" in err
