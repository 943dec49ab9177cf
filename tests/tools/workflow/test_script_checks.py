"""What a workflow script may look like: the checks that run before any process starts."""

from __future__ import annotations

import pytest
from openhands.tools.workflow import WorkflowScriptError, validate_workflow_script
from openhands.tools.workflow.runner import MAX_SCRIPT_CHARS, script_problem

GOOD = """
async def main(wf):
    found = await wf.map_agents(["a", "b"], lambda item: f"look at {item}")
    return await wf.reduce_agent(wf.flatten([found]), "merge")
"""


def test_a_script_using_the_wf_api_passes() -> None:
    assert script_problem(GOOD) is None
    validate_workflow_script(GOOD)


@pytest.mark.parametrize(
    ("script", "says"),
    [
        ("x = 1\n", "exactly one `async def main(wf):`"),
        ("def main(wf):\n    pass\n", "exactly one `async def main(wf):`"),
        ("async def main(wf):\n    pass\nasync def main(wf):\n    pass\n", "exactly one"),
        ("async def main(wf, extra):\n    pass\n", "must be exactly `async def main(wf):`"),
        ("async def main(wf=None):\n    pass\n", "must be exactly `async def main(wf):`"),
        ("async def main(wf):\n    return (\n", "does not parse"),
        ("import os\nasync def main(wf):\n    pass\n", "Line 1: workflow scripts may not import"),
        (
            "async def main(wf):\n    from os import path\n",
            "Line 2: workflow scripts may not import",
        ),
        ("async def main(wf):\n    return __builtins__\n", "dunder names (__builtins__)"),
        ("async def main(wf):\n    return ''.__class__\n", "private attributes (.__class__)"),
        ("async def main(wf):\n    return wf._manager\n", "private attributes (._manager)"),
        ("async def main(wf):\n    wf.close()\n", "wf has no 'close'"),
        ("async def main(wf):\n    return eval('1')\n", "`eval()` is not available"),
        ("async def main(wf):\n    return open('x')\n", "`open()` is not available"),
        ("#" * (MAX_SCRIPT_CHARS + 1), f"at most {MAX_SCRIPT_CHARS}"),
    ],
)
def test_a_script_outside_the_rules_is_refused_with_the_reason(script: str, says: str) -> None:
    problem = script_problem(script)
    assert problem is not None and says in problem
    with pytest.raises(WorkflowScriptError, match=r".+"):
        validate_workflow_script(script)


def test_the_refusal_is_a_value_error() -> None:
    assert issubclass(WorkflowScriptError, ValueError)
