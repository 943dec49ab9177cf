"""`switch_llm`: lets the agent move itself to another saved LLM profile for the next steps.

Opt-in (`Agent(include_default_tools=["FinishTool", "SwitchLLMTool"])`): the tool lists the
profiles of `~/.openhands/profiles` (`LLMProfileStore`) when the conversation starts, and a
call switches the conversation's agent to that profile (`LocalConversation.switch_profile`).
"""

from __future__ import annotations

from typing import Any

from openhands.sdk.tool.schema import Action, Observation
from openhands.sdk.tool.tool import ToolDefinition, ToolExecutor
from pydantic import Field

DESCRIPTION = (
    "Switch the LLM that runs your next steps to one of the saved profiles below (e.g. a "
    "stronger model for a hard step, a cheaper one for routine work). Give the profile_name "
    "exactly as listed and a short reason."
)


class SwitchLLMAction(Action):
    """Arguments of `switch_llm`."""

    profile_name: str = Field(description="The saved LLM profile to use from now on.")
    reason: str = Field(default="", description="Why this profile suits the next steps.")


class SwitchLLMObservation(Observation):
    """The result of a switch: the profile and the model now active (or why not)."""

    profile_name: str = Field(default="", description="The profile asked for.")
    reason: str = Field(default="", description="The reason given.")
    model: str | None = Field(default=None, description="The model now active, if switched.")


class SwitchLLMExecutor(ToolExecutor[SwitchLLMAction, SwitchLLMObservation]):
    """Switches the calling conversation's agent to a saved profile."""

    def __call__(self, action: SwitchLLMAction, conversation: Any = None) -> SwitchLLMObservation:
        fields: dict[str, Any] = {"profile_name": action.profile_name, "reason": action.reason}
        switch = getattr(conversation, "switch_profile", None)
        if switch is None:
            return SwitchLLMObservation.from_text(
                "switch_llm only works inside a local conversation.", is_error=True, **fields
            )
        try:
            switch(action.profile_name)
        except FileNotFoundError as exc:
            return SwitchLLMObservation.from_text(str(exc), is_error=True, **fields)
        except ValueError as exc:
            return SwitchLLMObservation.from_text(
                f"Profile {action.profile_name!r} cannot be used: {exc}", is_error=True, **fields
            )
        model = conversation.agent.llm.model
        return SwitchLLMObservation.from_text(
            f"Switched to profile {action.profile_name!r}: the active model is {model}.",
            model=model,
            **fields,
        )


class SwitchLLMTool(ToolDefinition[SwitchLLMAction, SwitchLLMObservation]):
    """Switches the agent to another saved LLM profile."""

    description = DESCRIPTION
    action_type = SwitchLLMAction
    observation_type = SwitchLLMObservation

    def __init__(self, executor: Any = None, /, **data: Any) -> None:
        if "description" not in data:
            data["description"] = _describe_profiles()
        super().__init__(executor or SwitchLLMExecutor(), **data)


def _describe_profiles() -> str:
    from openhands.sdk.llm.llm_profile_store import LLMProfileStore

    try:
        names = [name.removesuffix(".json") for name in LLMProfileStore().list()]
    except OSError:
        names = []
    listed = "\n".join(f"- {name}" for name in names) or "(no profiles are saved)"
    return f"{DESCRIPTION}\nSaved profiles:\n{listed}"
