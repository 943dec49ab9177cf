"""`Plugin`: a folder bundling skills, hooks, MCP servers, sub-agents and slash commands.

Layout (Claude Code's plugin layout, which the reference SDK reads too):

    my-plugin/
      .plugin/plugin.json     the manifest: name, version, description, author
                              (`.claude-plugin/plugin.json` is read too; none: the folder's name)
      skills/<name>/SKILL.md  skills (AgentSkills folders, or plain .md skills)
      hooks/hooks.json        hooks, in the hooks.json shape of `HookConfig`
      .mcp.json               MCP servers: {"mcpServers": {name: {...}}}
      agents/*.md             sub-agent definitions
      commands/*.md           slash commands (skills triggered by `/<plugin>:<command>`)

`${CLAUDE_PLUGIN_ROOT}` and `${OPENHANDS_PLUGIN_ROOT}` in `.mcp.json` and `hooks.json`
stand for the plugin's folder.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from openhands.sdk.context.agent_context import AgentContext
from openhands.sdk.context.skill_loading import load_skills_from_dir
from openhands.sdk.context.skills import Skill
from openhands.sdk.errors import NotFoundError
from openhands.sdk.extensions.errors import ExtensionError
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.mcp.config import MCPServer, coerce_mcp_config
from openhands.sdk.plugin.fetch import fetch_plugin
from openhands.sdk.plugin.types import CommandDefinition, PluginManifest
from openhands.sdk.subagent.schema import AgentDefinition
from openhands.sdk.workspace.extension_files import read_text_beneath
from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["PLUGIN_MANIFEST_DIRS", "Plugin", "PluginError"]

logger = logging.getLogger(__name__)

PLUGIN_MANIFEST_DIRS = (".plugin", ".claude-plugin")
PLUGIN_MANIFEST_FILE = "plugin.json"
_ROOT_VARIABLES = ("${CLAUDE_PLUGIN_ROOT}", "${OPENHANDS_PLUGIN_ROOT}")


class PluginError(ExtensionError, ValueError):
    """A plugin folder is malformed: the message names the file and what is wrong in it."""


class Plugin(BaseModel):
    """A plugin read from a folder (see the module docstring)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    manifest: PluginManifest = Field(description="Its plugin.json.")
    path: str = Field(description="Its folder.")
    skills: list[Skill] = Field(default_factory=list, description="Its skills.")
    hooks: HookConfig | None = Field(default=None, description="Its hooks, if any.")
    mcp_config: dict[str, MCPServer] = Field(
        default_factory=dict, description="Its MCP servers, by name."
    )
    agents: list[AgentDefinition] = Field(default_factory=list, description="Its sub-agents.")
    commands: list[CommandDefinition] = Field(
        default_factory=list, description="Its slash commands."
    )

    @property
    def name(self) -> str:
        """The manifest's name."""
        return self.manifest.name

    @property
    def version(self) -> str:
        """The manifest's version."""
        return self.manifest.version

    @property
    def description(self) -> str:
        """The manifest's description."""
        return self.manifest.description

    @property
    def entry_slash_command(self) -> str | None:
        """`/<plugin>:<entry_command>`, when the manifest names one."""
        command = self.manifest.entry_command
        return f"/{self.name}:{command}" if command else None

    def get_all_skills(self) -> list[Skill]:
        """Its skills, then its commands as skills triggered by `/<plugin>:<command>`."""
        return [*self.skills, *(command.to_skill(self.name) for command in self.commands)]

    def add_skills_to(
        self, agent_context: AgentContext | None = None, max_skills: int | None = None
    ) -> AgentContext:
        """A copy of `agent_context` with this plugin's skills (they win a name).

        Raises PluginError when the total would pass `max_skills`.
        """
        merged = {skill.name: skill for skill in (agent_context.skills if agent_context else [])}
        for skill in self.get_all_skills():
            if skill.name in merged:
                logger.warning(
                    "Plugin %r: skill %r replaces one of that name", self.name, skill.name
                )
            merged[skill.name] = skill
        if max_skills is not None and len(merged) > max_skills:
            raise PluginError(
                f"Plugin {self.name!r} brings the agent to {len(merged)} skills, which exceeds "
                f"maximum of {max_skills} (the limit; raise max_skills if you trust these "
                "plugins)"
            )
        if agent_context is None:
            return AgentContext(skills=list(merged.values()))
        return agent_context.model_copy(update={"skills": list(merged.values())})

    def add_mcp_config_to(
        self, mcp_config: dict[str, MCPServer] | None = None
    ) -> dict[str, MCPServer]:
        """`mcp_config` plus this plugin's MCP servers (they win a name)."""
        existing = dict(mcp_config or {})
        for name in self.mcp_config:
            if name in existing:
                logger.warning(
                    "Plugin %r: MCP server %r replaces one of that name", self.name, name
                )
        return {**existing, **self.mcp_config}

    @classmethod
    def fetch(
        cls,
        source: str,
        cache_dir: Path | None = None,
        ref: str | None = None,
        update: bool = True,
        repo_path: str | None = None,
    ) -> Path:
        """The local folder of a plugin source (a folder as is, a git source cloned)."""
        return fetch_plugin(
            source, cache_dir=cache_dir, ref=ref, update=update, repo_path=repo_path
        )

    @classmethod
    def load(cls, plugin_path: str | Path) -> Plugin:
        """Read a plugin folder. Raises NotFoundError (a FileNotFoundError) or PluginError (a ValueError)."""
        root = Path(plugin_path).expanduser().resolve()
        if not root.is_dir():
            raise NotFoundError(
                f"Plugin folder not found: {root}; give the folder that holds the plugin."
            )
        manifest = _manifest(root)
        skills_dir = root / "skills"
        repo, knowledge, agentskills = load_skills_from_dir(skills_dir, root=root)
        skills = [*agentskills.values(), *repo.values(), *knowledge.values()]
        try:
            return cls(
                manifest=manifest,
                path=str(root),
                skills=skills,
                hooks=_hooks(root),
                mcp_config=_mcp_config(root),
                agents=_agents(root),
                commands=_commands(root),
            )
        except ValidationError as exc:
            raise PluginError(f"Plugin {root}: {exc}") from None

    @classmethod
    def load_all(cls, plugins_dir: str | Path) -> list[Plugin]:
        """Every plugin in the subfolders of `plugins_dir` (a broken one is logged, skipped)."""
        root = Path(plugins_dir).expanduser()
        if not root.is_dir():
            return []
        plugins: list[Plugin] = []
        for folder in sorted(root.iterdir()):
            if not folder.is_dir() or folder.name.startswith("."):
                continue
            try:
                plugins.append(cls.load(folder))
            except (OSError, ValueError) as exc:
                logger.warning("Skipping plugin %s: %s", folder, exc)
        return plugins


def _read_json(path: Path, root: Path) -> Any:
    # From inside the plugin only: a cloned plugin may link its files anywhere.
    try:
        text = read_text_beneath(root, path)
        for variable in _ROOT_VARIABLES:
            text = text.replace(variable, json.dumps(str(root))[1:-1])
        return json.loads(text)
    except (OSError, ValueError) as exc:
        raise PluginError(f"{path} cannot be read as JSON: {exc}") from exc


def _manifest(root: Path) -> PluginManifest:
    for folder in PLUGIN_MANIFEST_DIRS:
        path = root / folder / PLUGIN_MANIFEST_FILE
        if path.is_file():
            data = _read_json(path, root)
            if not isinstance(data, dict):
                raise PluginError(f"{path} must hold a JSON object")
            data.setdefault("name", root.name)
            try:
                return PluginManifest.model_validate(data)
            except ValidationError as exc:
                raise PluginError(f"{path} is not a valid plugin manifest: {exc}") from None
    return PluginManifest(name=root.name)


def _hooks(root: Path) -> HookConfig | None:
    path = root / "hooks" / "hooks.json"
    if not path.is_file():
        return None
    data = _read_json(path, root)
    try:
        config = HookConfig.model_validate(data)
    except ValidationError as exc:
        raise PluginError(f"{path} is not a valid hooks file: {exc}") from None
    return None if config.is_empty() else config


def _mcp_config(root: Path) -> dict[str, MCPServer]:
    path = root / ".mcp.json"
    if not path.is_file():
        return {}
    data = _read_json(path, root)
    try:
        return coerce_mcp_config(data)
    except (ValidationError, ValueError) as exc:
        raise PluginError(f"{path} is not a valid MCP configuration: {exc}") from None


def _agents(root: Path) -> list[AgentDefinition]:
    from openhands.sdk.subagent.load import load_agents_from_dir

    definitions = load_agents_from_dir(root / "agents")
    return [d.model_copy(update={"level": "plugin"}) for d in definitions]


def _commands(root: Path) -> list[CommandDefinition]:
    folder = root / "commands"
    if not folder.is_dir():
        return []
    commands: list[CommandDefinition] = []
    for path in sorted(folder.glob("*.md")):
        try:
            commands.append(CommandDefinition.load(path, root=root))
        except (OSError, ValueError) as exc:
            logger.warning("Skipping plugin command %s: %s", path, exc)
    return commands
