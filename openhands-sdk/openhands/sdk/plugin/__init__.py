"""Plugins: folders bundling skills, hooks, MCP servers, sub-agents and slash commands.

Load them into a conversation (`Conversation(agent, plugins=[PluginSource(...)])`), into an
agent (`load_plugins`), or install them into `~/.openhands/plugins/installed/`
(`install_plugin`, `list_installed_plugins`, `load_installed_plugins`, ...). Marketplaces
live in `openhands.sdk.marketplace`. See docs/skills.md.
"""

from openhands.sdk.extensions.fetch import resolve_source_path
from openhands.sdk.extensions.sources import (
    GitHubURLComponents,
    is_local_path,
    parse_github_url,
    validate_source_path,
)
from openhands.sdk.plugin.fetch import PluginFetchError, fetch_plugin, fetch_plugin_with_resolution
from openhands.sdk.plugin.installed import (
    InstalledPluginInfo,
    disable_plugin,
    enable_plugin,
    get_installed_plugin,
    get_installed_plugins_dir,
    install_plugin,
    list_installed_plugins,
    load_installed_plugins,
    uninstall_plugin,
    update_plugin,
)
from openhands.sdk.plugin.loader import LoadedPlugins, load_plugins, resolve_plugins
from openhands.sdk.plugin.plugin import Plugin, PluginError
from openhands.sdk.plugin.types import (
    CommandDefinition,
    PluginAuthor,
    PluginManifest,
    PluginSource,
    ResolvedPluginSource,
)

__all__ = [
    "CommandDefinition",
    "GitHubURLComponents",
    "InstalledPluginInfo",
    "LoadedPlugins",
    "Plugin",
    "PluginAuthor",
    "PluginError",
    "PluginFetchError",
    "PluginManifest",
    "PluginSource",
    "ResolvedPluginSource",
    "disable_plugin",
    "enable_plugin",
    "fetch_plugin",
    "fetch_plugin_with_resolution",
    "get_installed_plugin",
    "get_installed_plugins_dir",
    "install_plugin",
    "is_local_path",
    "list_installed_plugins",
    "load_installed_plugins",
    "load_plugins",
    "parse_github_url",
    "resolve_plugins",
    "resolve_source_path",
    "uninstall_plugin",
    "update_plugin",
    "validate_source_path",
]
