"""`DelegateTool`: spawn named sub-agents, then send them tasks that run in parallel.

`spawn` names sub-agents (`ids`, optional `agent_types` from the agent registry);
`delegate` sends each named sub-agent a task (`tasks: {id: task}`); they run at the same
time and the call returns when all have answered. A sub-agent remembers its earlier tasks:
its second task continues its conversation. The sub-agents run through the same
`TaskManager` as the task tool (persisted under the parent's `subagents/` folder when the
parent persists). The id -> sub-agent map lives in memory, with the conversation.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.tool import Action, Observation, ToolContext, ToolDefinition
from openhands.tools.params import parse_params
from openhands.tools.task.manager import DEFAULT_MAX_ITERATIONS, TaskError, TaskManager
from openhands.tools.task.parent import parent_llm, sub_visualizer
from openhands.tools.task.subagents import (
    DEFAULT_SUBAGENT_TYPE,
    UnknownSubagentTypeError,
    describe_subagents,
    resolve_subagent,
)
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

__all__ = [
    "DelegateAction",
    "DelegateExecutor",
    "DelegateObservation",
    "DelegateParams",
    "DelegateTool",
]

CommandLiteral = Literal["spawn", "delegate"]

DESCRIPTION = """Work with named sub-agents that run in parallel in the same workspace
({workspace}).
* `spawn` with `ids` (e.g. ["lodging", "activities"]) creates sub-agents; `agent_types`
  (same order as `ids`) picks each one's type from the list below ("general-purpose" when
  omitted or blank). At most {max_children} sub-agents exist at a time; spawning an existing
  id replaces it.
* `delegate` with `tasks` ({{"lodging": "Find three hotels...", ...}}) sends each sub-agent
  its task; they work at the same time and the call returns every answer. A sub-agent
  remembers its earlier tasks. It does not see this conversation: say everything it needs.

Available sub-agent types:
{agent_types}"""


class DelegateAction(Action):
    """Arguments of `delegate`."""

    command: CommandLiteral = Field(description="`spawn` or `delegate`.")
    ids: list[str] | None = Field(
        default=None, description="`spawn`: the names of the sub-agents to create."
    )
    agent_types: list[str] | None = Field(
        default=None,
        description="`spawn`: the type of each id, in order; blank or missing: general-purpose.",
    )
    tasks: dict[str, str] | None = Field(
        default=None, description="`delegate`: {sub-agent id: its task}."
    )


class DelegateObservation(Observation):
    """What a `spawn` or `delegate` did; `results` maps ids to their answers (delegate)."""

    command: CommandLiteral = "delegate"
    results: dict[str, str] = Field(default_factory=dict)
    errors: dict[str, str] = Field(default_factory=dict)


class DelegateParams(BaseModel):
    """The `params` of a `Tool(name="delegate")` spec."""

    model_config = ConfigDict(extra="forbid")

    max_children: int = Field(
        default=5, ge=1, le=100, description="How many sub-agents may exist at a time."
    )
    max_iterations: int = Field(
        default=DEFAULT_MAX_ITERATIONS, ge=1, le=10_000, description="Sub-agent steps per run."
    )


@dataclass
class _Child:
    agent_type: str
    task_id: str | None = None


class DelegateExecutor:
    """Keeps the named sub-agents of one conversation and runs their tasks in parallel."""

    def __init__(self, manager: TaskManager, max_children: int = 5) -> None:
        if max_children < 1:
            raise InvalidArgumentError("max_children must be >= 1")
        self.manager = manager
        self.max_children = max_children
        self._children: dict[str, _Child] = {}
        self._busy: set[str] = set()  # ids whose task is running (parallel tool calls)
        self._lock = threading.Lock()

    @property
    def children(self) -> dict[str, str]:
        """The spawned sub-agents: id -> agent type."""
        with self._lock:
            return {name: child.agent_type for name, child in self._children.items()}

    def __call__(
        self, action: DelegateAction, conversation: BaseConversation | None = None
    ) -> DelegateObservation:
        """Run a `spawn` or a `delegate`; mistakes come back as error observations."""
        if action.command == "spawn":
            return self._spawn(action)
        return self._delegate(action, conversation)

    def close(self) -> None:
        """Close the sub-agents' live conversations."""
        self.manager.close()

    # -- spawn --------------------------------------------------------------------------------

    def _spawn(self, action: DelegateAction) -> DelegateObservation:
        ids = [name.strip() for name in action.ids or []]
        if not ids or not all(ids):
            return _error("spawn", "`spawn` needs `ids`: a non-empty list of non-blank names.")
        if len(set(ids)) != len(ids):
            return _error("spawn", f"`ids` must be distinct, got {ids}.")
        types = list(action.agent_types or [])
        if len(types) > len(ids):
            return _error(
                "spawn",
                f"agent_types has {len(types)} entries but ids only {len(ids)}; "
                "give at most one type per id.",
            )
        chosen = [
            (types[index].strip() if index < len(types) else "") or DEFAULT_SUBAGENT_TYPE
            for index in range(len(ids))
        ]
        try:
            resolved = [resolve_subagent(agent_type).definition.name for agent_type in chosen]
        except UnknownSubagentTypeError as exc:
            return _error("spawn", str(exc))
        with self._lock:
            total = len(set(self._children) | set(ids))
            if total > self.max_children:
                return _error(
                    "spawn",
                    f"Cannot spawn {len(ids)} sub-agent(s): {len(self._children)} exist and at "
                    f"most {self.max_children} may. Reuse an id to replace a sub-agent.",
                )
            replaced = [self._children[name].task_id for name in ids if name in self._children]
            for name, agent_type in zip(ids, resolved, strict=True):
                self._children[name] = _Child(agent_type)
        for task_id in replaced:
            if task_id is not None:
                self.manager.evict(task_id)
        listed = ", ".join(f"{name} ({kind})" for name, kind in zip(ids, resolved, strict=True))
        return DelegateObservation.from_text(
            f"Successfully spawned {len(ids)} sub-agent(s): {listed}", command="spawn"
        )

    # -- delegate -----------------------------------------------------------------------------

    def _delegate(
        self, action: DelegateAction, conversation: BaseConversation | None
    ) -> DelegateObservation:
        tasks = {name.strip(): task for name, task in (action.tasks or {}).items()}
        if not tasks:
            return _error("delegate", "`delegate` needs `tasks`: {sub-agent id: task}.")
        with self._lock:
            children = dict(self._children)
        missing = [name for name in tasks if name not in children]
        if missing:
            known = ", ".join(children) or "none (spawn them first)"
            return _error("delegate", f"No sub-agent named {', '.join(missing)}. Spawned: {known}.")
        llm = parent_llm(conversation)
        results: dict[str, str] = {}
        errors: dict[str, str] = {}

        def run(name: str) -> None:
            child = children[name]
            with self._lock:
                if name in self._busy:
                    errors[name] = "it is still working on an earlier task; wait for that first"
                    return
                self._busy.add(name)
            visualizer = sub_visualizer(conversation, name)
            try:
                if child.task_id is None:
                    record = self.manager.start(
                        tasks[name],
                        description=name,
                        subagent_type=child.agent_type,
                        llm=llm,
                        visualizer=visualizer,
                    )
                    with self._lock:
                        if self._children.get(name) is child:
                            child.task_id = record.id
                else:
                    record = self.manager.resume(
                        child.task_id, tasks[name], llm=llm, visualizer=visualizer
                    )
            except (TaskError, ValueError) as exc:
                errors[name] = str(exc)
                return
            finally:
                with self._lock:
                    self._busy.discard(name)
            if record.status == "completed":
                results[name] = record.result or "(no final message)"
            else:
                errors[name] = record.error or "the sub-agent failed"

        with ThreadPoolExecutor(max_workers=len(tasks), thread_name_prefix="delegate") as pool:
            list(pool.map(run, tasks))
        lines = []
        for number, name in enumerate(tasks, 1):
            if name in results:
                lines.append(f"{number}. Agent {name}: {results[name]}")
            else:
                lines.append(f"{number}. Agent {name} ERROR: {errors[name]}")
        head = f"Completed delegation of {len(tasks)} task(s)"
        if errors:
            head += f" with {len(errors)} error(s)"
        return DelegateObservation.from_text(
            f"{head}\n\nResults:\n" + "\n".join(lines),
            is_error=not results,
            command="delegate",
            results=results,
            errors=errors,
        )


def _error(command: CommandLiteral, text: str) -> DelegateObservation:
    return DelegateObservation.from_text(f"Error: {text}", is_error=True, command=command)


class DelegateTool(ToolDefinition):
    """Spawns named sub-agents and runs their tasks in parallel (see the module docstring)."""

    description = DESCRIPTION
    action_type = DelegateAction
    observation_type = DelegateObservation

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ToolDefinition]:
        """Build the delegate tool for one conversation.

        Params: `max_children` (sub-agents at a time, default 5) and `max_iterations`
        (sub-agent steps per run, default 100).
        """
        settings = parse_params(DelegateParams, "delegate", params)
        manager = TaskManager(
            context.working_dir,
            persistence_dir=context.persistence_dir,
            max_iterations=settings.max_iterations,
        )
        executor = DelegateExecutor(manager, max_children=settings.max_children)
        description = DESCRIPTION.format(
            workspace=context.working_dir or "the workspace",
            max_children=settings.max_children,
            agent_types=describe_subagents(),
        )
        return [cls(executor, description=description)]
