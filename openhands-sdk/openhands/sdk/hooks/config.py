"""`HookConfig`: shell commands run at lifecycle points (Stop, PreToolUse, ...)."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class HookEventType(StrEnum):
    """The lifecycle points a hook can attach to."""

    STOP = "stop"
    PRE_TOOL_USE = "pre_tool_use"
    POST_TOOL_USE = "post_tool_use"
    USER_PROMPT_SUBMIT = "user_prompt_submit"


class HookDefinition(BaseModel):
    """One command hook: run `command` with the event JSON on stdin."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    type: Literal["command"] = "command"
    command: str = Field(min_length=1)
    # Bounded: the OS cannot wait much longer (epoll: ~24 days; beyond, OverflowError).
    timeout: float = Field(
        default=60, gt=0, le=86_400, description="Seconds before the hook is killed (<= 1 day)."
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


class HookMatcher(BaseModel):
    """Hooks that apply to tool names matching `matcher` ('*' = all; else a regex)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    matcher: str = "*"
    hooks: list[HookDefinition] = Field(default_factory=list)

    def matches(self, tool_name: str | None) -> bool:
        """Whether this matcher applies to `tool_name` (None: a non-tool event)."""
        if self.matcher in ("*", "") or tool_name is None:
            return True
        try:
            return re.fullmatch(self.matcher, tool_name) is not None
        except re.error:
            return self.matcher == tool_name


_PASCAL_KEYS = {
    "Stop": "stop",
    "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use",
    "UserPromptSubmit": "user_prompt_submit",
}


class HookConfig(BaseModel):
    """Command hooks per lifecycle point. PascalCase keys ("Stop", "PreToolUse") work too."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    stop: list[HookMatcher] = Field(default_factory=list)
    pre_tool_use: list[HookMatcher] = Field(default_factory=list)
    post_tool_use: list[HookMatcher] = Field(default_factory=list)
    user_prompt_submit: list[HookMatcher] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _accept_pascal_case(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {_PASCAL_KEYS.get(key, key): value for key, value in data.items()}
        return data

    def hooks_for(self, event: HookEventType, tool_name: str | None = None) -> list[HookDefinition]:
        """The hooks to run for `event` (and, for tool events, `tool_name`), in order."""
        matchers: list[HookMatcher] = getattr(self, event.value)
        return [hook for m in matchers if m.matches(tool_name) for hook in m.hooks]

    def is_empty(self) -> bool:
        """True when no hook is configured at all."""
        return not (self.stop or self.pre_tool_use or self.post_tool_use or self.user_prompt_submit)
