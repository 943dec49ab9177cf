"""Tool definitions: names, LLM schemas from Action models, built-ins, the registry."""

from __future__ import annotations

from typing import Any

import pytest
from openhands.sdk.tool import (
    Action,
    FinishAction,
    FinishObservation,
    FinishTool,
    Observation,
    ThinkAction,
    ThinkTool,
    Tool,
    ToolContext,
    ToolDefinition,
    UnknownToolError,
    register_tool,
    registered_tools,
    resolve_tool,
)
from pydantic import Field, ValidationError


class SearchAction(Action):
    """Arguments of a search."""

    query: str = Field(description="What to look for.")
    limit: int = Field(default=10, ge=1)


class CodeSearchTool(ToolDefinition):
    """Search the code base."""

    action_type = SearchAction


def _context(tmp_path: Any) -> ToolContext:
    return ToolContext(working_dir=str(tmp_path))


def test_name_is_snake_case_without_the_tool_suffix() -> None:
    assert CodeSearchTool.name == "code_search"
    assert FinishTool.name == "finish"
    assert ThinkTool.name == "think"


def test_an_explicit_name_is_kept() -> None:
    class Renamed(ToolDefinition):
        name = "grep"

    assert Renamed.name == "grep"


def test_llm_schema_comes_from_the_action_model() -> None:
    schema = CodeSearchTool().to_openai_tool()

    function = schema["function"]
    assert schema["type"] == "function"
    assert function["name"] == "code_search"
    assert function["description"] == "Search the code base."
    assert function["parameters"]["required"] == ["query"]
    assert function["parameters"]["properties"]["query"] == {
        "description": "What to look for.",
        "type": "string",
    }
    assert function["parameters"]["properties"]["limit"]["minimum"] == 1
    assert "title" not in function["parameters"]


def test_the_responses_api_shape_carries_the_same_schema_flat() -> None:
    tool = CodeSearchTool()

    flat = tool.to_responses_tool(add_security_risk_prediction=True)
    nested = tool.to_openai_tool(add_security_risk_prediction=True)["function"]

    assert flat == {
        "type": "function",
        "name": "code_search",
        "description": "Search the code base.",
        "parameters": nested["parameters"],
        "strict": False,
    }
    assert "security_risk" in flat["parameters"]["properties"]
    assert "security_risk" not in tool.to_responses_tool()["parameters"]["properties"]


def test_builtin_schemas_use_the_field_names_llms_know() -> None:
    finish = FinishTool().to_openai_tool()["function"]["parameters"]["properties"]
    think = ThinkTool().to_openai_tool()["function"]["parameters"]["properties"]

    assert set(finish) == {"message", "summary"}
    assert set(think) == {"thought", "summary"}


def test_actions_reject_unknown_arguments() -> None:
    with pytest.raises(ValidationError, match="surprise"):
        SearchAction.model_validate({"query": "x", "surprise": True})


def test_finish_returns_its_message() -> None:
    observation = FinishTool()(FinishAction(message="all done"))

    assert isinstance(observation, FinishObservation)
    assert (observation.text, observation.is_error) == ("all done", False)


@pytest.mark.parametrize("tool_class", [FinishTool, ThinkTool])
def test_built_ins_are_created_with_an_executor_and_read_only_hints(tool_class: Any) -> None:
    [tool] = tool_class.create()

    assert tool.executor is not None
    hints = tool.annotations
    assert hints is not None and hints.readOnlyHint and hints.idempotentHint
    assert not hints.destructiveHint and not hints.openWorldHint


def test_think_changes_nothing_and_answers_at_once() -> None:
    observation = ThinkTool()(ThinkAction(thought="plan"))

    assert not observation.is_error
    assert "logged" in observation.text


def test_a_tool_without_executor_says_so() -> None:
    with pytest.raises(NotImplementedError, match="code_search"):
        CodeSearchTool()(SearchAction(query="x"))


def test_a_tool_runs_through_its_executor() -> None:
    def executor(action: Any, conversation: Any = None) -> Observation:
        return Observation.from_text(f"found {action.query}")

    tool = CodeSearchTool(executor=executor)

    assert tool(SearchAction(query="main")).text == "found main"


def test_close_closes_the_executor() -> None:
    class ClosingExecutor:
        closed = False

        def __call__(self, action: Any, conversation: Any = None) -> Observation:
            return Observation()

        def close(self) -> None:
            self.closed = True

    executor = ClosingExecutor()
    CodeSearchTool(executor=executor).close()

    assert executor.closed


def test_registered_class_resolves_by_name_and_class_name(tmp_path: Any) -> None:
    register_tool(CodeSearchTool.name, CodeSearchTool)

    by_name = resolve_tool(Tool(name="code_search"), _context(tmp_path))
    by_class = resolve_tool({"name": "CodeSearchTool"}, _context(tmp_path))

    assert [type(t) for t in by_name] == [CodeSearchTool]
    assert [type(t) for t in by_class] == [CodeSearchTool]
    assert {"code_search", "CodeSearchTool"} <= set(registered_tools())


def test_builtins_are_registered(tmp_path: Any) -> None:
    assert isinstance(resolve_tool(Tool(name="finish"), _context(tmp_path))[0], FinishTool)
    assert isinstance(resolve_tool(Tool(name="ThinkTool"), _context(tmp_path))[0], ThinkTool)


def test_a_factory_gets_the_context_and_params(tmp_path: Any) -> None:
    seen: dict[str, Any] = {}

    def factory(context: ToolContext, **params: Any) -> list[ToolDefinition]:
        seen.update(params, working_dir=context.working_dir)
        return [CodeSearchTool()]

    register_tool("configured_search", factory)

    tools = resolve_tool(Tool(name="configured_search", params={"depth": 3}), _context(tmp_path))

    assert len(tools) == 1
    assert seen == {"depth": 3, "working_dir": str(tmp_path)}


def test_unknown_tool_names_what_is_registered(tmp_path: Any) -> None:
    with pytest.raises(UnknownToolError, match="register_tool") as info:
        resolve_tool(Tool(name="no_such_tool"), _context(tmp_path))

    assert "finish" in str(info.value)


def test_params_for_a_tool_without_params_are_refused(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="takes no params"):
        resolve_tool(Tool(name="think", params={"x": 1}), _context(tmp_path))


def test_register_tool_needs_a_name() -> None:
    with pytest.raises(ValueError, match="non-empty name"):
        register_tool("", CodeSearchTool)


def test_tool_spec_needs_a_name() -> None:
    with pytest.raises(ValidationError):
        Tool(name="")
