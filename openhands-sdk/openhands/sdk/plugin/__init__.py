"""Plugins: folders bundling skills, hooks, MCP servers, sub-agents and slash commands.

Load them into a conversation (`Conversation(agent, plugins=[PluginSource(...)])`), into an
agent (`load_plugins`), or install them into `~/.openhands/plugins/installed/`
(`install_plugin`, `list_installed_plugins`, `load_installed_plugins`, ...). Marketplaces
live in `openhands.sdk.marketplace`. See docs/skills.md.
"""

from typing import TYPE_CHECKING

# The plugin's models stay eager (conversation requests carry `PluginSource`); loading,
# fetching and installing come on first use (git, the install folder: import time).
from openhands.sdk.plugin.types import (
    CommandDefinition,
    PluginAuthor,
    PluginManifest,
    PluginSource,
    ResolvedPluginSource,
)
from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.extensions.fetch import resolve_source_path
    from openhands.sdk.extensions.sources import (
        GitHubURLComponents,
        is_local_path,
        parse_github_url,
        validate_source_path,
    )
    from openhands.sdk.plugin.fetch import (
        PluginFetchError,
        fetch_plugin,
        fetch_plugin_with_resolution,
    )
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

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "resolve_source_path": "openhands.sdk.extensions.fetch",
        "GitHubURLComponents": "openhands.sdk.extensions.sources",
        "is_local_path": "openhands.sdk.extensions.sources",
        "parse_github_url": "openhands.sdk.extensions.sources",
        "validate_source_path": "openhands.sdk.extensions.sources",
        "PluginFetchError": "openhands.sdk.plugin.fetch",
        "fetch_plugin": "openhands.sdk.plugin.fetch",
        "fetch_plugin_with_resolution": "openhands.sdk.plugin.fetch",
        "InstalledPluginInfo": "openhands.sdk.plugin.installed",
        "disable_plugin": "openhands.sdk.plugin.installed",
        "enable_plugin": "openhands.sdk.plugin.installed",
        "get_installed_plugin": "openhands.sdk.plugin.installed",
        "get_installed_plugins_dir": "openhands.sdk.plugin.installed",
        "install_plugin": "openhands.sdk.plugin.installed",
        "list_installed_plugins": "openhands.sdk.plugin.installed",
        "load_installed_plugins": "openhands.sdk.plugin.installed",
        "uninstall_plugin": "openhands.sdk.plugin.installed",
        "update_plugin": "openhands.sdk.plugin.installed",
        "LoadedPlugins": "openhands.sdk.plugin.loader",
        "load_plugins": "openhands.sdk.plugin.loader",
        "resolve_plugins": "openhands.sdk.plugin.loader",
        "Plugin": "openhands.sdk.plugin.plugin",
        "PluginError": "openhands.sdk.plugin.plugin",
    },
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
