"""A ToolDefinition as JSON (the reference's shape) and read back by its kind."""

from __future__ import annotations

import json

import pytest
from openhands.sdk.tool import Action, Observation, ToolDefinition
from openhands.sdk.tool.builtins import FinishAction, FinishTool, ThinkTool
from pydantic import BaseModel, Field


class TallyJsonAction(Action):
    """Arguments of the test tool."""

    n: int = Field(description="How many.")


class TallyJsonObservation(Observation):
    """What the test tool answers."""


class TallyJsonTool(ToolDefinition):
    """A tool defined by a user, read back by its class name."""

    description = "Counts."
    action_type = TallyJsonAction
    observation_type = TallyJsonObservation


def test_a_tool_dumps_its_kind_title_and_schema_classes_by_name() -> None:
    [tool] = FinishTool.create()

    data = json.loads(tool.model_dump_json())

    assert data["kind"] == "FinishTool" == tool.kind
    assert data["title"] == "finish" == tool.title
    assert (data["action_type"], data["observation_type"]) == ("FinishAction", "FinishObservation")
    assert "executor" not in data


@pytest.mark.parametrize("tool", [FinishTool.create()[0], TallyJsonTool()])
def test_reading_through_the_base_class_gives_the_tool_class_back(tool: ToolDefinition) -> None:
    again = ToolDefinition.model_validate_json(tool.model_dump_json())

    assert type(again) is type(tool)
    assert again.model_dump() == tool.model_dump()
    assert again.executor is None  # an executor never leaves the process


def test_tools_inside_another_model_round_trip() -> None:
    class Holder(BaseModel):
        tools: list[ToolDefinition]

    holder = Holder(tools=[FinishTool.create()[0], ThinkTool.create()[0], TallyJsonTool()])

    again = Holder.model_validate_json(holder.model_dump_json())

    assert [type(t) for t in again.tools] == [FinishTool, ThinkTool, TallyJsonTool]
    assert again.tools[2].action_type is TallyJsonAction


def test_an_unknown_kind_or_action_class_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="Unexpected kind 'NoSuchTool' for ToolDefinition"):
        ToolDefinition.model_validate(
            {"kind": "NoSuchTool", "description": "x", "action_type": "FinishAction"}
        )
    with pytest.raises(ValueError, match="'NoSuchAction' is not a loaded Action class"):
        FinishTool.model_validate({"description": "x", "action_type": "NoSuchAction"})
    tool = FinishTool.model_validate({"description": "x", "action_type": "FinishAction"})
    assert tool.action_type is FinishAction
