"""Public behaviour, probed the same way in this project and in the reference SDK.

`probe_behaviour.py` makes the calls scripts make (defaults, frozen models, reading a policy
back by `kind`, MCP arguments, message serialization, hook loading, tool creation) and
prints the answers; it runs once with this project's Python and once with the reference's.
Each probe must answer the same on both sides (deliberate differences are in
docs/compatibility.md and are not probed here).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from interop_env import quiet_env

pytestmark = pytest.mark.timeout(600)  # the first test may make the reference's venv

PROBE = Path(__file__).with_name("probe_behaviour.py")


def _answers(python: str, home: Path) -> dict[str, Any]:
    done = subprocess.run(
        [python, str(PROBE)],
        capture_output=True,
        text=True,
        timeout=300,
        env=quiet_env(home),
        cwd=home,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def both(reference_python: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    home = tmp_path_factory.mktemp("probe-home")
    return _answers(sys.executable, home), _answers(str(reference_python), home)


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
