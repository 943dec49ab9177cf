"""`ToolDefinition` as a generic pydantic model, `ToolExecutor`, annotations and the context."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk.tool import (
    BUILT_IN_TOOL_CLASSES,
    BUILT_IN_TOOLS,
    Action,
    FinishTool,
    InvalidToolSpecError,
    Observation,
    ThinkTool,
    Tool,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
    list_registered_tools,
    register_tool,
    resolve_tool,
)
from pydantic import Field, ValidationError


class LookupAction(Action):
    """Arguments of a lookup."""

    key: str = Field(description="What to look up.")


class LookupObservation(Observation):
    """A lookup's answer."""

    found: bool = False


class LookupExecutor(ToolExecutor[LookupAction, LookupObservation]):
    """Knows one key."""

    def __call__(self, action: LookupAction, conversation: Any = None) -> LookupObservation:
        hit = action.key == "answer"
        return LookupObservation.from_text("42" if hit else "unknown", found=hit)


class LookupTool(ToolDefinition[LookupAction, LookupObservation]):
    """Looks things up."""

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[LookupTool]:
        return [
            cls(
                description="Look a key up.",
                action_type=LookupAction,
                observation_type=LookupObservation,
                executor=LookupExecutor(),
                annotations=ToolAnnotations(title="Lookup", readOnlyHint=True),
                meta={"team": "search"},
            )
        ]


def test_a_tool_built_from_keywords_runs_its_executor(tmp_path: Path) -> None:
    [tool] = LookupTool.create(ToolContext(working_dir=str(tmp_path)))

    result = tool(LookupAction(key="answer"))

    assert isinstance(result, LookupObservation)
    assert (result.text, result.found) == ("42", True)
    assert (tool.name, tool.title, tool.meta) == ("lookup", "Lookup", {"team": "search"})
    assert tool.to_openai_tool()["function"]["description"] == "Look a key up."


def test_tool_classes_and_executors_are_generic() -> None:
    assert issubclass(LookupTool, ToolDefinition)
    assert issubclass(LookupExecutor, ToolExecutor)
    assert ToolDefinition[Action, Observation] is not None


def test_plain_class_attributes_still_set_a_tools_fields() -> None:
    class PingTool(ToolDefinition):
        description = "Ping."
        action_type = LookupAction

    tool = PingTool()

    assert (tool.description, tool.action_type) == ("Ping.", LookupAction)


def test_a_tool_is_frozen_and_refuses_unknown_fields() -> None:
    tool = ThinkTool()

    with pytest.raises(ValidationError):
        tool.description = "changed"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="surprise"):
        ThinkTool(surprise=True)  # type: ignore[call-arg]


def test_an_executor_must_be_callable() -> None:
    with pytest.raises(ValidationError, match="callable"):
        LookupTool(executor="not a function")


def test_set_executor_returns_a_copy_with_it() -> None:
    tool = LookupTool(action_type=LookupAction)

    ready = tool.set_executor(LookupExecutor())

    assert tool.executor is None and ready(LookupAction(key="x")).text == "unknown"


@pytest.mark.parametrize(
    ("class_name", "expected"),
    [
        ("TerminalTool", "terminal"),
        ("FileEditorTool", "file_editor"),
        ("BashAndGrepToolSet", "bash_and_grep_tool_set"),
        ("MCPTool", "mcp"),
        ("XMLHttpTool", "xml_http"),
    ],
)
def test_tool_names_follow_the_class_names(class_name: str, expected: str) -> None:
    assert type(class_name, (ToolDefinition,), {}).name == expected


def test_executor_hooks_do_nothing_by_default() -> None:
    executor = LookupExecutor()

    executor.close()
    executor.interrupt()


def test_security_risk_is_asked_only_of_tools_that_change_things() -> None:
    class WriteTool(ToolDefinition):
        action_type = LookupAction

    [lookup] = LookupTool.create(ToolContext(working_dir="."))

    def properties(tool: ToolDefinition) -> dict[str, Any]:
        schema = tool.to_openai_tool(add_security_risk_prediction=True)
        return schema["function"]["parameters"]["properties"]

    assert "security_risk" in properties(WriteTool())
    assert "security_risk" not in properties(lookup)


def test_the_context_answers_the_reference_conversation_state_names(tmp_path: Path) -> None:
    conversation_id = uuid.uuid4()
    context = ToolContext(
        working_dir=str(tmp_path),
        persistence_dir=str(tmp_path / "conv"),
        conversation_id=conversation_id.hex,
    )

    assert context.workspace.working_dir == str(tmp_path)
    assert context.id == conversation_id
    assert context.persistence_dir == str(tmp_path / "conv")


def test_a_factory_asking_the_context_for_something_missing_is_a_spec_error(
    tmp_path: Path,
) -> None:
    def needs_agent(context: Any, **params: Any) -> list[ToolDefinition]:
        return [LookupTool(description=context.agent.name)]

    register_tool("needs_agent", needs_agent)

    with pytest.raises(InvalidToolSpecError, match="needs_agent"):
        resolve_tool(Tool(name="needs_agent"), ToolContext(working_dir=str(tmp_path)))


def test_a_ready_instance_can_be_registered(tmp_path: Path) -> None:
    [tool] = LookupTool.create(ToolContext(working_dir=str(tmp_path)))
    register_tool("fixed_lookup", tool)

    [resolved] = resolve_tool(Tool(name="fixed_lookup"), ToolContext(working_dir=str(tmp_path)))

    assert resolved is tool
    assert "fixed_lookup" in list_registered_tools()
    with pytest.raises(ValueError, match="executor"):
        register_tool("no_executor", LookupTool())


def test_the_builtins_are_a_package_with_their_class_map() -> None:
    from openhands.sdk.tool.builtins.finish import FinishAction, FinishObservation
    from openhands.sdk.tool.builtins.finish import FinishTool as Finish
    from openhands.sdk.tool.builtins.think import ThinkTool as Think

    assert (Finish, Think) == (FinishTool, ThinkTool)
    assert [FinishTool, ThinkTool] == BUILT_IN_TOOLS
    from openhands.sdk.tool.builtins.switch_llm import SwitchLLMTool

    assert {
        "FinishTool": FinishTool,
        "ThinkTool": ThinkTool,
        "SwitchLLMTool": SwitchLLMTool,  # opt-in, not in BUILT_IN_TOOLS
    } == BUILT_IN_TOOL_CLASSES
    result = FinishTool()(FinishAction(message="bye"))
    assert isinstance(result, FinishObservation) and result.text == "bye"
