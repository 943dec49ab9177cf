"""`AgentContext`: what an agent knows beyond its tools: skills, prompt suffixes, memory."""

from __future__ import annotations

from datetime import datetime

from openhands.sdk.context.skills import Skill
from pydantic import BaseModel, ConfigDict, Field


class AgentContext(BaseModel):
    """Extra context for an agent's prompts.

    Always-on skills and `system_message_suffix` extend the system prompt; triggered skills and
    `user_message_suffix` extend the user turn that triggers them.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    skills: list[Skill] = Field(default_factory=list, description="Skills the agent may use.")
    system_message_suffix: str | None = Field(
        default=None, description="Text appended to the system prompt."
    )
    user_message_suffix: str | None = Field(
        default=None, description="Text appended to every user message the LLM sees."
    )
    load_user_skills: bool = Field(
        default=False, description="Also load skills from ~/.openhands/skills."
    )
    load_public_skills: bool = Field(
        default=False,
        description="Also load the public skills registry (needs the network; skipped when "
        "it cannot be reached).",
    )
    load_project_skills: bool = Field(
        default=False, description="Also load skills from the workspace's .openhands/skills."
    )
    load_memory: bool = Field(
        default=False,
        description="Add the persistent memory files (MEMORY.md) to the system prompt.",
    )
    disabled_skills: list[str] = Field(
        default_factory=list, description="Names of skills never to use."
    )
    current_datetime: datetime | str | None = Field(
        default=None, description="The date and time to tell the agent; None: now."
    )
