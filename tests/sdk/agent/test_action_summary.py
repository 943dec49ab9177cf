"""The `summary` asked of every tool call: offered in each schema, kept on the ActionEvent,
never handed to a tool that does not take it."""

from __future__ import annotations

from typing import Any

from openhands.sdk.event import ActionEvent, AgentErrorEvent, Event
from openhands.sdk.tool import Action, Observation, ToolDefinition, register_tool
from openhands.sdk.tool.tool import SUMMARY_PROPERTY
from pydantic import Field


class TicketSummaryAction(Action):
    """Arguments of `ticket`: its own `summary` is the ticket's title."""

    summary: str = Field(description="The ticket's title.")


class TicketTool(ToolDefinition):
    """Files a ticket; answers with the title it got."""

    description = "File a ticket."
    action_type = TicketSummaryAction

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        return Observation.from_text(f"filed: {action.summary}")


register_tool(TicketTool.name, TicketTool)


def _actions(events: list[Event]) -> list[ActionEvent]:
    return [e for e in events if isinstance(e, ActionEvent)]


def test_every_tool_schema_offers_an_optional_summary(make_conversation) -> None:
    conversation, _ = make_conversation(tools=["echo"])

    for schema in conversation.tool_schemas:
        parameters: Any = schema["function"]["parameters"]  # type: ignore[index]
        assert parameters["properties"]["summary"] == SUMMARY_PROPERTY
        assert "summary" not in parameters.get("required", [])


def test_the_summary_is_kept_on_the_event_and_not_given_to_the_tool(
    make_conversation, reply, echo_received
) -> None:
    conversation, _ = make_conversation(
        [reply.call("echo", {"text": "hi", "summary": "  say hi once  "}), reply.finish()],
        tools=["echo"],
    )
    conversation.send_message("go")

    conversation.run()

    echo = _actions(list(conversation.state.events))[0]
    assert echo.summary == "say hi once"
    assert [action.text for action in echo_received] == ["hi"]
    assert "summary" not in echo_received[0].model_dump()
    assert not [e for e in conversation.state.events if isinstance(e, AgentErrorEvent)]


def test_a_call_without_a_summary_or_with_a_blank_one_has_none(
    make_conversation, reply, echo_received
) -> None:
    conversation, _ = make_conversation(
        [
            reply.calls(("echo", {"text": "a"}), ("echo", {"text": "b", "summary": "  "})),
            reply.finish(),
        ],
        tools=["echo"],
    )
    conversation.send_message("go")

    conversation.run()

    echoes = [e for e in _actions(list(conversation.state.events)) if e.tool_name == "echo"]
    assert [e.summary for e in echoes] == [None, None]
    assert sorted(action.text for action in echo_received) == ["a", "b"]


def test_a_tool_with_its_own_summary_argument_gets_it_and_the_event_shows_it(
    make_conversation, reply
) -> None:
    conversation, _ = make_conversation(
        [reply.call("ticket", {"summary": "login page is blank"}), reply.finish()],
        tools=["ticket"],
    )
    [schema] = [s for s in conversation.tool_schemas if s["function"]["name"] == "ticket"]  # type: ignore[index]
    conversation.send_message("go")

    conversation.run()

    ticket = _actions(list(conversation.state.events))[0]
    assert ticket.summary == "login page is blank"
    answers = [getattr(e, "observation", None) for e in conversation.state.events]
    assert any(o is not None and o.text == "filed: login page is blank" for o in answers)
    own = schema["function"]["parameters"]["properties"]["summary"]  # type: ignore[index]
    assert own["description"] == "The ticket's title."  # its own, not the common one


def test_the_summary_survives_a_reload_of_the_event(make_conversation, reply) -> None:
    conversation, _ = make_conversation(
        [reply.call("echo", {"text": "x", "summary": "echo x"}), reply.finish()], tools=["echo"]
    )
    conversation.send_message("go")
    conversation.run()
    echo = _actions(list(conversation.state.events))[0]

    again = Event.model_validate_json(echo.model_dump_json())

    assert isinstance(again, ActionEvent) and again.summary == "echo x"
