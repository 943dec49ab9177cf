"""`AgentContext`: what an agent knows beyond its tools: skills, prompt suffixes, memory."""

from __future__ import annotations

import functools
import logging
from datetime import datetime
from typing import Any

from openhands.sdk.context.skills import Skill
from openhands.sdk.llm.message import Message, TextContent
from openhands.sdk.secret.secrets import SecretSource, SecretSpec, SecretValue
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    TypeAdapter,
    field_serializer,
    field_validator,
    model_validator,
)

logger = logging.getLogger(__name__)

_MASK = "**********"
"""How a secret given as plain text is dumped unless `expose_secrets` is asked for."""


def _now() -> datetime:
    return datetime.now().astimezone()


class AgentContext(BaseModel):
    """Extra context for an agent's prompts.

    Always-on skills, the memory and `system_message_suffix` form the dynamic part of the
    system prompt (`SystemPromptEvent.dynamic_context`); triggered skills and
    `user_message_suffix` extend the user message that triggers them (recorded on its
    `MessageEvent` as `extended_content` and `activated_skills`). User skills are loaded when
    the context is built; project skills and memory when a conversation starts in a workspace.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    skills: list[Skill] = Field(
        default_factory=list, description="Skills the agent may use (unique names)."
    )
    system_message_suffix: str | None = Field(
        default=None, description="Text appended to the system prompt."
    )
    user_message_suffix: str | None = Field(
        default=None, description="Text appended to every user message the LLM sees."
    )
    load_user_skills: bool = Field(
        default=False,
        description="Also load skills from ~/.agents/skills, ~/.openhands/skills and "
        "~/.openhands/microagents (explicit skills win a name).",
    )
    load_public_skills: bool = Field(
        default=False,
        description="Load the public skills registry. Accepted for compatibility: this SDK "
        "fetches nothing from the network, so it is skipped (logged).",
    )
    marketplace_path: str | None = Field(
        default="marketplaces/default.json",
        description="The public registry's marketplace file (unused: see load_public_skills).",
    )
    load_project_skills: bool = Field(
        default=False,
        description="Also load the workspace's skills (AGENTS.md-style files, .agents/skills, "
        ".openhands/skills) when a conversation starts; they win a name.",
    )
    load_memory: bool = Field(
        default=False,
        description="Put the persistent memory (MEMORY.md, user and project tiers) and how to "
        "keep it into the system prompt when a conversation starts.",
    )
    memory_context: str | None = Field(
        default=None,
        exclude=True,
        description="The memory text resolved for a conversation (set by the conversation, "
        "never saved: it is read from disk again each time).",
    )
    disabled_skills: list[str] = Field(
        default_factory=list, description="Names of skills never to use (from any source)."
    )
    secrets: dict[str, SecretValue] | None = Field(
        default=None,
        description="Secrets the agent's commands may use, by environment variable name: a "
        "value, or a SecretSource (StaticSecret, LookupSecret). A conversation registers them "
        "as `update_secrets` does (its own win a name) and the system prompt lists their names "
        "and descriptions, never their values. Dumps mask the values unless "
        "`context={'expose_secrets': True}`.",
    )
    current_datetime: datetime | str | None = Field(
        default_factory=_now,
        description="The date and time to tell the agent (a datetime is shown to the minute, "
        "a string as is); None: tell none. Defaults to when this context was made.",
    )

    @field_validator("skills")
    @classmethod
    def _unique_names(cls, skills: list[Skill]) -> list[Skill]:
        seen: set[str] = set()
        for skill in skills:
            if skill.name in seen:
                raise ValueError(
                    f"Duplicate skill name found: {skill.name}; give each skill its own name"
                )
            seen.add(skill.name)
        return skills

    @field_validator("secrets", mode="before")
    @classmethod
    def _secret_sources(cls, value: Any) -> Any:
        # A source read back from JSON is a dict with its `kind`; SecretSource itself is abstract.
        if not isinstance(value, dict):
            return value
        return {
            name: _spec_adapter().validate_python(item) if isinstance(item, dict) else item
            for name, item in value.items()
        }

    @field_serializer("secrets")
    def _dump_secrets(
        self, value: dict[str, SecretValue] | None, info: SerializationInfo
    ) -> dict[str, Any] | None:
        if value is None:
            return None
        exposed = isinstance(info.context, dict) and bool(info.context.get("expose_secrets"))
        return {
            name: item.model_dump(mode=info.mode, context=info.context)
            if isinstance(item, SecretSource)
            else (item if exposed else _MASK)
            for name, item in value.items()
        }

    def usable_secrets(self) -> dict[str, SecretValue]:
        """`secrets` without the values that are only the mask of a dump read back (an agent
        loaded from a file written without `expose_secrets`): those have no value to give."""
        return {name: item for name, item in (self.secrets or {}).items() if item != _MASK}

    def get_secret_infos(self) -> list[dict[str, str | None]]:
        """`{"name", "description"}` of each secret in `secrets` (a plain value has no
        description); empty when there are none."""
        return [
            {
                "name": name,
                "description": item.description if isinstance(item, SecretSource) else None,
            }
            for name, item in (self.secrets or {}).items()
        ]

    @model_validator(mode="after")
    def _load_auto_skills(self) -> AgentContext:
        if self.load_public_skills:
            logger.info(
                "load_public_skills: skipped (this SDK fetches nothing from the network); "
                "put the skills you need in ~/.openhands/skills or the project instead"
            )
        if self.load_user_skills:
            from openhands.sdk.context.skill_loading import merge_skills_by_name
            from openhands.sdk.context.user_skills import load_user_skills

            self.skills = merge_skills_by_name(self.skills, load_user_skills())
        if self.disabled_skills:
            disabled = set(self.disabled_skills)
            self.skills = [skill for skill in self.skills if skill.name not in disabled]
        return self

    def get_formatted_datetime(self) -> str | None:
        """`current_datetime` as the prompt shows it (a datetime to the minute), or None."""
        if isinstance(self.current_datetime, datetime):
            return self.current_datetime.replace(tzinfo=None).isoformat(timespec="minutes")
        return self.current_datetime

    def get_system_message_suffix(
        self,
        llm_model: str | None = None,
        llm_model_canonical: str | None = None,
        additional_secret_infos: list[dict[str, str | None]] | None = None,
        **_: Any,
    ) -> str | None:
        """The dynamic part of the system prompt, or None when there is nothing to say.

        `llm_model` drops the vendor skills meant for another model family (a CLAUDE.md for a
        non-Claude model, a GEMINI.md for a non-Gemini one). The secrets named are those of
        `secrets` and `additional_secret_infos` (a conversation's own; they win a name).
        """
        secret_infos = {info["name"]: info for info in self.get_secret_infos()}
        secret_infos.update((info["name"], info) for info in additional_secret_infos or ())
        from openhands.sdk.context import prompt_blocks  # only when a prompt is built

        model = " ".join(m for m in (llm_model, llm_model_canonical) if m).lower()
        blocks = [
            prompt_blocks.repo_context(
                [s for s in self.skills if _always_on(s) and _fits_model(s, model)]
            ),
            prompt_blocks.memory(self.memory_context) if self.load_memory else None,
            prompt_blocks.available_skills(
                [s for s in self.skills if not _always_on(s) and not s.disable_model_invocation]
            ),
            (self.system_message_suffix or "").strip() or None,
            prompt_blocks.custom_secrets(
                [(str(name), info.get("description")) for name, info in secret_infos.items()]
            ),
            prompt_blocks.current_datetime(self.get_formatted_datetime()),
        ]
        text = "\n\n".join(block for block in blocks if block)
        return text or None

    def get_user_message_suffix(
        self, user_message: Message, skip_skill_names: list[str] | set[str] | None = None
    ) -> tuple[TextContent, list[str]] | None:
        """The text that extends `user_message`, and the skills it activated (None: nothing).

        A skill whose trigger the message mentions is added (unless its name is in
        `skip_skill_names`, e.g. already given earlier in the conversation), then
        `user_message_suffix`.
        """
        skip = set(skip_skill_names or ())
        query = "\n".join(
            part.text for part in user_message.content if isinstance(part, TextContent)
        ).strip()
        recalled: list[tuple[Skill, str]] = []
        if query:
            for skill in self.skills:
                if skill.name in skip:
                    continue
                word = skill.match_trigger(query)
                if word is not None:
                    logger.info("Skill %r triggered by %r", skill.name, word)
                    recalled.append((skill, word))
        from openhands.sdk.context import prompt_blocks

        parts = [prompt_blocks.triggered_skill(skill, word) for skill, word in recalled]
        suffix = (self.user_message_suffix or "").strip()
        if suffix:
            parts.append(suffix)
        if not parts:
            return None
        return TextContent(text="\n".join(parts)), [skill.name for skill, _ in recalled]


@functools.cache
def _spec_adapter() -> TypeAdapter[Any]:
    """The secret-spec validator, built on first use (not at import: it costs every process)."""
    return TypeAdapter(SecretSpec)


def _always_on(skill: Skill) -> bool:
    return skill.trigger is None and not skill.is_agentskills_format


def _fits_model(skill: Skill, model: str) -> bool:
    if not model:
        return True
    if skill.name == "claude":
        return "claude" in model or "anthropic" in model
    if skill.name == "gemini":
        return "gemini" in model
    return True
