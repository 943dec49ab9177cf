"""`HookConfig`: hooks run at lifecycle points (Stop, PreToolUse, ...): commands or LLM checks."""

from __future__ import annotations

import json
import logging
import re
from enum import StrEnum
from pathlib import Path
from typing import Any

from openhands.sdk.hooks.types import HOOK_EVENT_FIELDS, HookEventType
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

logger = logging.getLogger(__name__)

__all__ = ["HookConfig", "HookDefinition", "HookEventType", "HookMatcher", "HookType"]


class HookType(StrEnum):
    """How a hook decides."""

    COMMAND = "command"
    """A shell command: the event JSON on stdin, the exit code and stdout JSON decide."""
    PROMPT = "prompt"
    """One completion of the conversation's LLM under the policy in `prompt`."""
    AGENT = "agent"
    """A short sub-conversation of an agent (the conversation's LLM, `system_prompt`, `tools`)."""


class HookDefinition(BaseModel):
    """One hook. `command` is required for command hooks, `prompt` for prompt hooks;
    agent hooks take `system_prompt`, `tools` and `max_iterations`."""

    model_config = ConfigDict(defer_build=True, extra="forbid", populate_by_name=True)

    type: HookType = HookType.COMMAND
    name: str | None = Field(
        default=None, description="A label for logs and events (and the hook LLM's usage_id)."
    )
    command: str = Field(default="", description="The shell command (command hooks only).")
    prompt: str | None = Field(
        default=None, description="The policy the LLM applies (prompt hooks only)."
    )
    system_prompt: str | None = Field(
        default=None, description="The hook agent's system prompt (agent hooks)."
    )
    tools: list[str] = Field(
        default_factory=list, description="Tool names the hook agent may use (agent hooks)."
    )
    # Bounded: the OS cannot wait much longer (epoll: ~24 days; beyond, OverflowError).
    timeout: float = Field(
        default=60,
        gt=0,
        le=86_400,
        description="Seconds before a command is killed, or the hook LLM's request timeout "
        "(<= 1 day).",
    )
    max_iterations: int = Field(
        default=3, ge=1, description="Steps the hook agent may take (agent hooks)."
    )
    async_: bool = Field(
        default=False,
        alias="async",
        description="Run the command in the background without waiting (it cannot block).",
    )

    @field_validator("command")
    @classmethod
    def _no_nul_byte(cls, value: str) -> str:
        # The OS cannot pass a NUL byte in an argument: such a hook could never run.
        if "\x00" in value:
            raise ValueError(
                "command must not contain a NUL byte (\\x00); no shell command can carry one"
            )
        return value

    @model_validator(mode="after")
    def _fields_fit_the_type(self) -> HookDefinition:
        if self.type == HookType.COMMAND and not self.command.strip():
            raise ValueError("'command' is required when type is 'command' (a shell command)")
        if self.type != HookType.COMMAND and self.command:
            hint = "prompt" if self.type == HookType.PROMPT else "system_prompt"
            raise ValueError(
                f"'command' must not be set when type is {self.type.value!r}; use {hint!r} instead"
            )
        if self.type == HookType.PROMPT and not (self.prompt or "").strip():
            raise ValueError("'prompt' is required when type is 'prompt' (the policy to apply)")
        if self.type != HookType.COMMAND and self.async_:
            raise ValueError(
                f"'async' is not supported for {self.type.value} hooks (only command hooks run "
                "in the background); remove it"
            )
        return self

    @property
    def display_command(self) -> str:
        """What logs and `HookExecutionEvent.hook_command` show for this hook."""
        if self.command:
            return self.command
        label = self.name or (self.prompt or self.system_prompt or self.type.value)[:20]
        return f"{self.type.value}-hook:{label}"


class HookMatcher(BaseModel):
    """Hooks that apply to tool names matching `matcher`.

    '*' or '' match every tool; `/pattern/` is a regex; a matcher with regex characters is
    tried as a regex (whole name) and else compared as a plain name. Events without a tool
    (Stop, UserPromptSubmit, SessionStart, SessionEnd) run every matcher's hooks.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    matcher: str = "*"
    hooks: list[HookDefinition] = Field(default_factory=list)

    def matches(self, tool_name: str | None) -> bool:
        """Whether this matcher applies to `tool_name` (None: a non-tool event)."""
        if self.matcher in ("*", "") or tool_name is None:
            return True
        pattern = self.matcher
        if len(pattern) > 2 and pattern.startswith("/") and pattern.endswith("/"):
            pattern = pattern[1:-1]
        try:
            return re.fullmatch(pattern, tool_name) is not None
        except re.error:
            return self.matcher == tool_name


def _snake_case(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


class HookConfig(BaseModel):
    """Hooks per lifecycle point.

    PascalCase keys ("Stop", "PreToolUse") and the `{"hooks": {...}}` wrapper of hooks.json
    files are accepted too; an unknown event name is an error.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    pre_tool_use: list[HookMatcher] = Field(
        default_factory=list, description="Before a tool runs; may block the call."
    )
    post_tool_use: list[HookMatcher] = Field(
        default_factory=list, description="After a tool ran (cannot block)."
    )
    user_prompt_submit: list[HookMatcher] = Field(
        default_factory=list,
        description="When a user message is sent; may block it or add context to it.",
    )
    session_start: list[HookMatcher] = Field(
        default_factory=list, description="When a conversation is opened (cannot block)."
    )
    session_end: list[HookMatcher] = Field(
        default_factory=list, description="When a conversation is closed (cannot block)."
    )
    stop: list[HookMatcher] = Field(
        default_factory=list,
        description="When the agent wants to finish; blocking makes it keep working.",
    )

    @model_validator(mode="before")
    @classmethod
    def _accept_pascal_case(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if set(data) == {"hooks"} and isinstance(data["hooks"], dict):
            data = data["hooks"]  # the hooks.json wrapper
        normalized: dict[str, Any] = {}
        for key, value in data.items():
            name = _snake_case(key) if isinstance(key, str) else key
            if name != key and name not in HOOK_EVENT_FIELDS:
                known = ", ".join(sorted(HOOK_EVENT_FIELDS))
                raise ValueError(f"Unknown event type {key!r}; expected one of: {known}")
            if name in normalized:
                raise ValueError(
                    f"Duplicate hook event {key!r}: it is given twice (PascalCase and "
                    "snake_case); keep one"
                )
            normalized[name] = value
        return normalized

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HookConfig:
        """Build a config from its JSON shape (either key style, with or without `hooks`)."""
        return cls.model_validate(data)

    @classmethod
    def load(
        cls, path: str | Path | None = None, working_dir: str | Path | None = None
    ) -> HookConfig:
        """Read a hooks.json file: `path`, or else the first of
        `<working_dir>/.openhands/hooks.json` and `~/.openhands/hooks.json` that exists
        (no file, or a `path` that does not exist: an empty config, as in the reference)."""
        from openhands.sdk.workspace.extension_files import read_text_beneath

        if path is not None:
            if not Path(path).exists():
                return cls()
            text = read_text_beneath(Path(path).parent, path)
            return cls.model_validate(json.loads(text))
        base = Path(working_dir) if working_dir is not None else Path.cwd()
        candidates = [
            (base, base / ".openhands" / "hooks.json"),
            (Path.home(), Path.home() / ".openhands" / "hooks.json"),
        ]
        root, found = next(((r, c) for r, c in candidates if c.is_file()), (None, None))
        if root is None or found is None:
            return cls()
        try:
            # A project's hooks file is the agent's to write: read from inside the project.
            text = read_text_beneath(root, found)
        except OSError as exc:
            logger.warning("Ignoring the hooks file %s: %s", found, exc)
            return cls()
        return cls.model_validate(json.loads(text))

    @classmethod
    def merge(cls, configs: list[HookConfig]) -> HookConfig | None:
        """One config with every matcher of `configs`, in order (None when it is empty)."""
        merged = cls(
            **{
                field: [m for c in configs for m in getattr(c, field)]
                for field in HOOK_EVENT_FIELDS
            }
        )
        return None if merged.is_empty() else merged

    def hooks_for(self, event: HookEventType, tool_name: str | None = None) -> list[HookDefinition]:
        """The hooks to run for `event` (and, for tool events, `tool_name`), in order."""
        matchers: list[HookMatcher] = getattr(self, event.field_name)
        return [hook for m in matchers if m.matches(tool_name) for hook in m.hooks]

    def get_hooks_for_event(
        self, event_type: HookEventType, tool_name: str | None = None
    ) -> list[HookDefinition]:
        """The reference SDK's name for `hooks_for`."""
        return self.hooks_for(event_type, tool_name)

    def has_hooks_for_event(self, event_type: HookEventType) -> bool:
        """True when any matcher is configured for `event_type`."""
        return bool(getattr(self, event_type.field_name))

    def is_empty(self) -> bool:
        """True when no hook is configured at all."""
        return not any(getattr(self, field) for field in HOOK_EVENT_FIELDS)
