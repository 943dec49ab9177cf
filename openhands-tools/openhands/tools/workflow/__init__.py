"""The workflow tool: the agent writes a Python script that runs sub-agents in parallel.

The script runs as its own process with the agent's rights (see `executor.py` for the
trust model); it reaches sub-agents only through the `wf` object.
"""

from openhands.tools.workflow.definition import (
    WorkflowAction,
    WorkflowObservation,
    WorkflowParams,
    WorkflowTool,
    WorkflowToolSet,
)
from openhands.tools.workflow.executor import (
    WorkflowExecutor,
    WorkflowOutcome,
    WorkflowScriptError,
    validate_workflow_script,
)
from openhands.tools.workflow.runner import WorkflowContext

__all__ = [
    "WorkflowAction",
    "WorkflowContext",
    "WorkflowExecutor",
    "WorkflowObservation",
    "WorkflowOutcome",
    "WorkflowParams",
    "WorkflowScriptError",
    "WorkflowTool",
    "WorkflowToolSet",
    "validate_workflow_script",
]
