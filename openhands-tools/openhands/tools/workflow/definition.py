"""`WorkflowTool`: the agent writes a Python script that fans work out to sub-agents.

`Tool(name=WorkflowToolSet.name)` ("workflow_tool_set") and `Tool(name="workflow")` both
build the `workflow` tool. How a script runs, and what it may do, is in `executor.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from openhands.sdk.tool import Action, Observation, ToolContext, ToolDefinition
from openhands.sdk.utils.truncate import truncate_middle
from openhands.tools.params import parse_params
from openhands.tools.task.manager import DEFAULT_MAX_ITERATIONS
from openhands.tools.task.subagents import describe_subagents
from openhands.tools.workflow.executor import DEFAULT_TIMEOUT, WorkflowExecutor
from openhands.tools.workflow.runner import MAX_REDUCE_INPUT_CHARS, MAX_SCRIPT_CHARS
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

__all__ = [
    "WorkflowAction",
    "WorkflowObservation",
    "WorkflowParams",
    "WorkflowTool",
    "WorkflowToolSet",
]

DESCRIPTION = f"""Run a workflow: a Python script you write that hands work to sub-agents,
many at once, and returns one result. Use it for big jobs that split into independent
parts (audit every package, review a plan from several angles); intermediate results stay
out of this conversation.

The script defines exactly `async def main(wf):` and works only through `wf`; what
`main` returns (a string, or JSON-able data) is the tool's answer:
- `await wf.run_agent(prompt, subagent_type="general-purpose", description=None)` -> str
- `await wf.map_agents(items, prompt, subagent_type="general-purpose", max_concurrency=None,
  description=None)` -> list[str], one sub-agent per item, in item order. `prompt` is a
  function of the item (`lambda item: f"Review {{item}}"`) or a string in which `{{item}}`
  is replaced. If any item fails, it raises an ExceptionGroup (`except Exception` catches it).
- `await wf.reduce_agent(items, prompt, subagent_type="general-purpose", description=None)`
  -> str: one sub-agent gets `prompt` and the items as JSON (cut at
  {MAX_REDUCE_INPUT_CHARS} characters).
- `await wf.pipeline(items, *stages)`: each item through every stage, items independently;
  a stage may be async; a failing stage turns its item into None.
- `wf.flatten(values)`: flatten one level of nesting.
Sub-agents do the real work with their own tools; the script itself may not import
modules, open files or use private names, has only basic builtins, and `print()` output
is shown only when the workflow fails. At most {MAX_SCRIPT_CHARS} characters.
`max_concurrency` caps how many sub-agents work at once (2-4 keeps rate limits happy).
The script runs as its own process in the workspace, like a terminal command.

Example:
```python
async def main(wf):
    areas = ["src/api", "src/db"]
    reports = await wf.map_agents(
        areas, lambda area: f"Audit the tests of {{area}}; list untested behaviour.",
        subagent_type="code-explorer", max_concurrency=2)
    return await wf.reduce_agent(reports, "Merge these audits into one prioritised list.")
```

Sub-agent types:
{{agent_types}}"""


class WorkflowAction(Action):
    """Arguments of `workflow`."""

    name: str = Field(min_length=1, description="A short name for this workflow run.")
    script: str = Field(
        min_length=1,
        description="The Python script: it defines `async def main(wf):` and uses only `wf`.",
    )
    max_concurrency: int = Field(
        default=8, ge=1, le=64, description="How many sub-agents may work at the same time."
    )


class WorkflowObservation(Observation):
    """What a workflow returned, or why it failed."""

    name: str = ""
    status: Literal["completed", "error"] = "completed"


class WorkflowParams(BaseModel):
    """The `params` of a `Tool(name="workflow")` spec."""

    model_config = ConfigDict(extra="forbid")

    timeout: float = Field(
        default=DEFAULT_TIMEOUT,
        ge=0,
        description="Seconds a workflow may run before it is stopped; 0 means no limit.",
    )
    max_iterations: int = Field(
        default=DEFAULT_MAX_ITERATIONS, ge=1, le=10_000, description="Sub-agent steps per run."
    )
    max_output_chars: int = Field(
        default=30_000,
        ge=0,
        description="The longest answer given back (the middle is cut); 0 means no limit.",
    )


class _WorkflowToolExecutor:
    """Adapts `WorkflowExecutor` to the tool call: an observation for every outcome."""

    def __init__(self, executor: WorkflowExecutor, max_output_chars: int) -> None:
        self.executor = executor
        self.max_output_chars = max_output_chars

    def __call__(
        self, action: WorkflowAction, conversation: BaseConversation | None = None
    ) -> WorkflowObservation:
        if conversation is None:
            return WorkflowObservation.from_text(
                "Error: the workflow tool runs only inside a conversation.",
                is_error=True,
                name=action.name,
                status="error",
            )
        outcome = self.executor.run(
            action.script, max_concurrency=action.max_concurrency, conversation=conversation
        )
        text = truncate_middle(outcome.text, self.max_output_chars)
        if outcome.ok:
            return WorkflowObservation.from_text(text, name=action.name, status="completed")
        return WorkflowObservation.from_text(
            f"Error: {text}", is_error=True, name=action.name, status="error"
        )


class WorkflowTool(ToolDefinition):
    """Runs an LLM-written workflow script over registered sub-agents."""

    description = DESCRIPTION
    action_type = WorkflowAction
    observation_type = WorkflowObservation

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ToolDefinition]:
        """Build the workflow tool for one conversation.

        Params: `timeout` (seconds per workflow, default 3600, 0 = none), `max_iterations`
        (sub-agent steps per run, default 100), `max_output_chars` (default 30000, 0 = all).
        """
        settings = parse_params(WorkflowParams, "workflow", params)
        executor = WorkflowExecutor(
            context.working_dir,
            persistence_dir=context.persistence_dir,
            timeout=settings.timeout,
            max_iterations=settings.max_iterations,
        )
        description = DESCRIPTION.replace("{agent_types}", describe_subagents())
        return [
            cls(_WorkflowToolExecutor(executor, settings.max_output_chars), description=description)
        ]


class WorkflowToolSet:
    """Registry factory for the workflow tool (`Tool(name=WorkflowToolSet.name)`)."""

    # Reference-SDK scripts write `Tool(name=WorkflowToolSet.name)`; this is that name.
    name: ClassVar[str] = "workflow_tool_set"

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ToolDefinition]:
        """The same tools as `WorkflowTool.create`."""
        return WorkflowTool.create(context, **params)
