"""Standing approvals: "always allow this tool (or this command prefix) in this conversation".

An `AllowRule` is part of a conversation's confirmation decision (kept with its policy in
`base_state.json`): a call it matches runs without asking, unless the call was rated HIGH
risk. A rule with `command_prefix` matches only calls whose `command` argument starts with
that prefix at a word boundary; for the terminal every command of a chain (`a && b; c | d`)
must start with an allowed prefix (of this rule or another), and a command that runs another command in a
substitution (`$(...)`, backticks, `<(...)`) never matches. It is a convenience for a person
approving calls, not a sandbox: a program allowed by its name can still do anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from openhands.sdk.errors import InvalidArgumentTypeError
from pydantic import BaseModel, ConfigDict, Field, field_validator

NEVER_ASK = frozenset({"finish", "think"})
"""Tools that never wait for approval: they change nothing outside the conversation."""

TERMINAL_TOOLS = frozenset({"terminal", "bash", "execute_bash"})
"""Tools whose `command` is a shell command line (a prefix must hold for each command)."""

_SEPARATORS = re.compile(r"\|\||&&|[;&|\n]")
_SUBSTITUTION = ("$(", "`", "<(", ">(")


class AllowRule(BaseModel):
    """Calls of `tool` run without asking; with `command_prefix`, only those whose command
    starts with it (see the module docstring)."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    tool: str = Field(description="The tool's name, e.g. 'terminal' or 'file_editor'.")
    command_prefix: str | None = Field(
        default=None,
        description="Only calls whose `command` starts with this (a word boundary follows), "
        "e.g. 'pytest' or 'git status'; null: every call of the tool.",
    )

    @field_validator("tool")
    @classmethod
    def _tool_named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("tool must name a tool, e.g. 'terminal'")
        return value.strip()

    @field_validator("command_prefix")
    @classmethod
    def _prefix_not_blank(cls, value: str | None) -> str | None:
        if value is None:
            return None
        words = " ".join(value.split())
        if not words:
            raise ValueError("command_prefix must be a command's start (e.g. 'pytest') or null")
        return words

    def matches(self, tool_name: str, arguments: dict[str, Any]) -> bool:
        """Whether this rule alone lets a call of `tool_name` with these arguments run."""
        return allowed_by([self], tool_name, arguments)

    def describe(self) -> str:
        """The rule in words, as a person would say it."""
        if self.command_prefix is None:
            return f"every {self.tool} call"
        return f"{self.tool} commands starting with `{self.command_prefix}`"


def shell_commands(command: str) -> list[str]:
    """The commands of a shell command line split at `;`, `&&`, `||`, `|`, `&` and newlines,
    or [""] (which matches no prefix) when it substitutes one command into another."""
    if any(marker in command for marker in _SUBSTITUTION):
        return [""]
    parts = [part.strip() for part in _SEPARATORS.split(command)]
    return [part for part in parts if part] or [""]


def _starts_with(command: str, prefix: str) -> bool:
    words = " ".join(command.split())
    return words == prefix or words.startswith(prefix + " ")


def suggested_prefix(tool_name: str, arguments: dict[str, Any]) -> str | None:
    """The prefix a page or a prompt offers for "always allow commands like this one": the
    command's first word (two for `git`, `npm`, `uv`... whose second word is the action)."""
    command = arguments.get("command")
    if not isinstance(command, str) or tool_name not in TERMINAL_TOOLS:
        return None
    parts = shell_commands(command)
    if len(parts) != 1 or not parts[0]:
        return None
    words = parts[0].split()
    two_word = {"git", "npm", "pnpm", "yarn", "uv", "cargo", "go", "make", "docker", "poetry"}
    if len(words) > 1 and words[0] in two_word and not words[1].startswith("-"):
        return " ".join(words[:2])
    if len(words) > 2 and words[0] in ("python", "python3") and words[1] == "-m":
        return " ".join(words[:3])
    return words[0]


def call_arguments(action: Any) -> dict[str, Any]:
    """The arguments of an `ActionEvent` as a dict (its validated action, else the raw JSON)."""
    if getattr(action, "action", None) is not None:
        return action.action.model_dump(mode="json")
    try:
        parsed = json.loads(action.tool_call.arguments or "{}")
    except (ValueError, AttributeError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def allowed_by(rules: Sequence[AllowRule], tool_name: str, arguments: dict[str, Any]) -> bool:
    """Whether `rules` together let this call run without asking: a rule for the tool without
    a prefix, or, for each command of its command line, a rule whose prefix it starts with."""
    mine = [rule for rule in rules if rule.tool == tool_name]
    if not mine:
        return False
    if any(rule.command_prefix is None for rule in mine):
        return True
    command = arguments.get("command")
    if not isinstance(command, str):
        return False
    parts = shell_commands(command) if tool_name in TERMINAL_TOOLS else [command]
    prefixes = [rule.command_prefix for rule in mine if rule.command_prefix is not None]
    return all(any(_starts_with(part, prefix) for prefix in prefixes) for part in parts)


def suggested_rules(actions: Iterable[Any], *, whole_tools: bool) -> list[AllowRule]:
    """The standing approvals that would have let these calls (`ActionEvent`s) run: one per
    tool with `whole_tools`, else per command (`suggested_prefix`) for the terminal and per
    tool for the others. What a person is offered by "always allow"."""
    rules: list[AllowRule] = []
    for action in actions:
        name = action.tool_name
        if name in NEVER_ASK:
            continue
        prefix = None if whole_tools else suggested_prefix(name, call_arguments(action))
        rule = AllowRule(tool=name, command_prefix=prefix)
        if rule not in rules:
            rules.append(rule)
    return rules


def merged(rules: Iterable[AllowRule], rule: AllowRule) -> list[AllowRule]:
    """`rules` with `rule` added (once)."""
    kept = list(rules)
    return kept if rule in kept else [*kept, rule]


def unique_rules(rules: Iterable[AllowRule]) -> list[AllowRule]:
    """`rules` in their order, each once; linear in their number (rules are hashable).

    Raises `InvalidArgumentTypeError` for an item that is not an `AllowRule`.
    """
    kept: dict[AllowRule, None] = {}
    for rule in rules:
        if not isinstance(rule, AllowRule):
            raise InvalidArgumentTypeError(f"expected an AllowRule, not {rule!r}")
        kept.setdefault(rule, None)
    return list(kept)


__all__ = [
    "NEVER_ASK",
    "TERMINAL_TOOLS",
    "AllowRule",
    "allowed_by",
    "call_arguments",
    "merged",
    "shell_commands",
    "suggested_prefix",
    "suggested_rules",
    "unique_rules",
]
