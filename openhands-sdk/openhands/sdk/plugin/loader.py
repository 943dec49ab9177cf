"""Loading plugins into an agent: their skills, MCP servers and hooks, merged in order.

Skills and MCP servers of a later plugin win a name over earlier ones (and over the
agent's own); hooks add up (every plugin's hooks run). `LocalConversation(plugins=[...])`
and the agent server's `plugins` field use this.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from openhands.sdk.extensions.sources import redact_url
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.plugin.fetch import fetch_plugin_with_resolution
from openhands.sdk.plugin.plugin import Plugin
from openhands.sdk.plugin.types import PluginSource, ResolvedPluginSource

if TYPE_CHECKING:
    from openhands.sdk.agent.base import AgentBase

__all__ = ["DEFAULT_MAX_SKILLS", "LoadedPlugins", "load_plugins", "resolve_plugins"]

logger = logging.getLogger(__name__)

DEFAULT_MAX_SKILLS = 100
"""How many skills an agent may end up with after its plugins are merged in."""


class LoadedPlugins:
    """What loading plugins gave: the agent with them merged in, their hooks, the pins."""

    __slots__ = ("agent", "hooks", "plugins", "resolved")

    def __init__(
        self,
        agent: AgentBase,
        hooks: HookConfig | None,
        plugins: list[Plugin],
        resolved: list[ResolvedPluginSource],
    ) -> None:
        self.agent = agent
        self.hooks = hooks
        self.plugins = plugins
        self.resolved = resolved


def resolve_plugins(
    plugin_specs: Sequence[PluginSource | str],
    agent: AgentBase,
    max_skills: int = DEFAULT_MAX_SKILLS,
) -> LoadedPlugins:
    """Fetch and load every plugin, and merge them into a copy of `agent`.

    Raises PluginFetchError, FileNotFoundError or PluginError (when a plugin is malformed
    or the skills pass `max_skills`).
    """
    context = agent.agent_context
    mcp_config = dict(agent.mcp_config)
    hooks: list[HookConfig] = []
    plugins: list[Plugin] = []
    resolved: list[ResolvedPluginSource] = []
    for raw in plugin_specs:
        spec = PluginSource(source=raw) if isinstance(raw, str) else raw
        folder, commit = fetch_plugin_with_resolution(
            spec.source, ref=spec.ref, repo_path=spec.repo_path
        )
        plugin = Plugin.load(folder)
        logger.info(
            "Plugin %r from %s: %d skills, %d MCP servers, hooks: %s",
            plugin.name,
            redact_url(spec.source),
            len(plugin.get_all_skills()),
            len(plugin.mcp_config),
            "yes" if plugin.hooks else "no",
        )
        context = plugin.add_skills_to(context, max_skills=max_skills)
        mcp_config = plugin.add_mcp_config_to(mcp_config)
        if plugin.hooks is not None:
            hooks.append(plugin.hooks)
        plugins.append(plugin)
        resolved.append(ResolvedPluginSource.from_plugin_source(spec, commit))
    merged = agent.model_copy(update={"agent_context": context, "mcp_config": mcp_config})
    return LoadedPlugins(merged, HookConfig.merge(hooks), plugins, resolved)


def load_plugins(
    plugin_specs: Sequence[PluginSource | str],
    agent: AgentBase,
    max_skills: int = DEFAULT_MAX_SKILLS,
) -> tuple[AgentBase, HookConfig | None]:
    """`agent` with the plugins' skills and MCP servers merged in, and their hooks combined
    (no plugins: `agent` itself, unchanged, and no hooks)."""
    if not plugin_specs:
        return agent, None
    loaded = resolve_plugins(plugin_specs, agent, max_skills)
    return loaded.agent, loaded.hooks
