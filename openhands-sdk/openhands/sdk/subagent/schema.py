"""`AgentDefinition`: a sub-agent described as data (in Python or in a Markdown file).

A Markdown agent file has a YAML front matter block (read by `openhands.sdk.utils.frontmatter`)
and a body; the body is the agent's `system_prompt`. Front matter keys: `name` (default:
the file's stem), `description`, `model` (`inherit` = the parent's LLM), `color`, `tools`
(one name or a list), `skills` (comma-separated or a list), `permission_mode`,
`max_iteration_per_run`, `max_budget_per_run`, `hooks`, `mcp_config` (`mcp_servers` is an
alias), `profile_store_dir`. Other keys are kept in `metadata`. `<example>...</example>`
tags in the description become `when_to_use_examples`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final, Literal

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.utils.frontmatter import FrontMatterError, split_front_matter
from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "AgentDefinition",
    "AgentDefinitionError",
    "AgentDefinitionLevel",
    "PermissionMode",
]

AgentDefinitionLevel = Literal["project", "user", "builtin", "plugin", "programmatic"]
"""Where a definition was found; set by discovery, never read from a file."""

PermissionMode = Literal["always_confirm", "never_confirm", "confirm_risky"]

KNOWN_KEYS: Final[frozenset[str]] = frozenset(
    {
        "name",
        "description",
        "model",
        "color",
        "tools",
        "skills",
        "permission_mode",
        "max_iteration_per_run",
        "max_budget_per_run",
        "hooks",
        "mcp_config",
        "mcp_servers",
        "profile_store_dir",
    }
)
"""Front matter keys that map to fields; any other key lands in `metadata`."""

_EXAMPLE = re.compile(r"<example>(.*?)</example>", re.DOTALL | re.IGNORECASE)


class AgentDefinitionError(OpenHandsError, ValueError):
    """An agent definition file cannot be read or says something invalid; names the file."""


class AgentDefinition(BaseModel):
    """What a sub-agent is: its name, what it is for, its tools and its instructions."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str = Field(min_length=1, description="The name tasks ask for (`subagent_type`).")
    description: str = Field(default="", description="What the agent is for (the LLM reads it).")
    model: str = Field(
        default="inherit",
        description="`inherit` runs on the parent's LLM; another value names an LLM profile.",
    )
    color: str | None = Field(default=None, description="A display color, for UIs.")
    tools: list[str] = Field(
        default_factory=list, description="Registered tool names the agent gets."
    )
    skills: list[str] = Field(default_factory=list, description="Names of skills to load.")
    system_prompt: str = Field(
        default="", description="Instructions appended to the agent's system prompt."
    )
    source: str | None = Field(default=None, description="The file it was read from, if any.")
    level: AgentDefinitionLevel | None = Field(
        default=None, description="Where discovery found it (None: not discovered)."
    )
    when_to_use_examples: list[str] = Field(
        default_factory=list, description="The description's <example> texts."
    )
    hooks: HookConfig | None = Field(
        default=None, description="Hooks for the agent's own conversation."
    )
    permission_mode: PermissionMode | None = Field(
        default=None,
        description="Confirmation policy for the agent's actions; None inherits the parent's. "
        "Recorded only: this SDK has no confirmation policies yet.",
    )
    max_iteration_per_run: int | None = Field(
        default=None, gt=0, description="Steps per run; None: the task tool's setting."
    )
    max_budget_per_run: float | None = Field(
        default=None, gt=0, description="USD per run; None: no budget. Recorded only."
    )
    mcp_config: dict[str, Any] | None = Field(
        default=None, description="MCP servers for the agent: {name: server config}."
    )
    profile_store_dir: str | None = Field(
        default=None, description="Where LLM profiles are stored (for `model`)."
    )
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Front matter keys this model does not know."
    )

    @classmethod
    def load(cls, agent_path: str | Path, *, root: str | Path | None = None) -> AgentDefinition:
        """Read a Markdown agent file; `AgentDefinitionError` names the file and the problem.

        Only a regular file reached from `root` (default: its folder) without leaving it is
        read, within `OH_MAX_EXTENSION_FILE_BYTES` (a project's or plugin's file may be a
        link out, a FIFO or huge)."""
        from openhands.sdk.workspace.extension_files import read_text_beneath

        path = Path(agent_path)
        try:
            text = read_text_beneath(root if root is not None else path.parent, path)
        except (OSError, UnicodeDecodeError) as exc:
            raise AgentDefinitionError(f"Cannot read agent file {path}: {exc}") from exc
        try:
            front, body = split_front_matter(text, source=str(path))
            return cls.model_validate(_fields_from(front, body, path))
        except FrontMatterError as exc:
            raise AgentDefinitionError(str(exc)) from None
        except (ValidationError, ValueError, TypeError) as exc:
            raise AgentDefinitionError(f"Invalid agent file {path}: {exc}") from None


def _fields_from(front: dict[str, Any], body: str, path: Path) -> dict[str, Any]:
    description = "" if front.get("description") is None else str(front["description"])
    fields: dict[str, Any] = {
        "name": str(front.get("name") or path.stem),
        "description": description,
        "model": str(front.get("model") or "inherit"),
        "color": None if front.get("color") is None else str(front["color"]),
        "tools": _names(front.get("tools"), split_commas=False),
        "skills": _names(front.get("skills"), split_commas=True),
        "system_prompt": body.strip(),
        "source": path.as_posix(),
        "when_to_use_examples": [
            text.strip() for text in _EXAMPLE.findall(description) if text.strip()
        ],
        "metadata": {key: value for key, value in front.items() if key not in KNOWN_KEYS},
    }
    mode = front.get("permission_mode")
    if mode is not None:
        fields["permission_mode"] = str(mode).strip().lower()
    for key in ("max_iteration_per_run", "max_budget_per_run", "hooks", "profile_store_dir"):
        if front.get(key) is not None:
            fields[key] = front[key]
    servers = front.get("mcp_config", front.get("mcp_servers"))
    if servers is not None:
        if not isinstance(servers, dict):
            raise AgentDefinitionError(
                f"mcp_config must map server names to configs, got {servers!r}"
            )
        fields["mcp_config"] = servers
    return fields


def _names(raw: Any, *, split_commas: bool) -> list[str]:
    if raw is None:
        return []
    if isinstance(raw, str):
        parts = raw.split(",") if split_commas else [raw]
        return [part.strip() for part in parts if part.strip()]
    if isinstance(raw, list):
        return [str(item) for item in raw]
    raise AgentDefinitionError(f"expected a name or a list of names, got {raw!r}")
