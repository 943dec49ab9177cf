"""Public behaviour, probed the same way in this project and in the reference SDK.

`reference_clients/probe.py` makes the calls scripts make (defaults, frozen models, reading a
policy back by `kind`, MCP arguments, message serialization, hook loading, tool creation) and
gives the answers: run once as a script with this project's Python, once as a flow of the
reference's runner (the process the other interop tests use, its SDK imported already).
Each probe must answer the same on both sides (deliberate differences are in
docs/compatibility.md and are not probed here).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from interop_env import ReferenceRunner, quiet_env

pytestmark = pytest.mark.timeout(600)  # the first test may make the reference's venv

PROBE = Path(__file__).parent / "reference_clients" / "probe.py"


def _our_answers(home: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(PROBE)],
        capture_output=True,
        text=True,
        timeout=300,
        env=quiet_env(home),
        cwd=home,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def both(
    reference_python: Path,
    reference_runner: Callable[[Path], ReferenceRunner],
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict, dict]:
    home = tmp_path_factory.mktemp("probe-home")
    theirs = reference_runner(reference_python).run("answers", {}, home, script="probe.py")
    return _our_answers(home), theirs


def test_every_probe_runs_on_both_sides(both: tuple[dict, dict]) -> None:
    ours, reference = both
    assert ours.keys() == reference.keys()
    assert [name for name, answer in ours.items() if str(answer).startswith("error:")] == []


@pytest.mark.parametrize(
    "probe",
    [
        "llm_retry_and_timeout_defaults",
        "llm_empty_api_key_is_none",
        "llm_accepts_unknown_fields",
        "agent_is_frozen",
        "policy_read_from_base_by_kind",
        "ensemble_takes_a_users_analyzer",
        "an_analyzer_that_raises_rates",
        "mcp_arguments_are_the_data",
        "mcp_action_refuses_extra_fields",
        "assistant_tool_call_without_text_has_content_key",
        "tool_call_from_chat_completions",
        "hooks_from_a_missing_file",
        "finish_tool_created_without_arguments",
        "default_agent_tools",
    ],
)
def test_this_sdk_answers_as_the_reference(both: tuple[dict, dict], probe: str) -> None:
    ours, reference = both
    assert ours[probe] == reference[probe]
