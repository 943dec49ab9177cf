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

_SOURCES = "openhands.sdk.extensions.sources"
_FETCH = "openhands.sdk.plugin.fetch"
_INSTALLED = "openhands.sdk.plugin.installed"
_LOADER = "openhands.sdk.plugin.loader"
_PLUGIN = "openhands.sdk.plugin.plugin"

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "resolve_source_path": "openhands.sdk.extensions.fetch",
        "GitHubURLComponents": _SOURCES,
        "is_local_path": _SOURCES,
        "parse_github_url": _SOURCES,
        "validate_source_path": _SOURCES,
        "PluginFetchError": _FETCH,
        "fetch_plugin": _FETCH,
        "fetch_plugin_with_resolution": _FETCH,
        "InstalledPluginInfo": _INSTALLED,
        "disable_plugin": _INSTALLED,
        "enable_plugin": _INSTALLED,
        "get_installed_plugin": _INSTALLED,
        "get_installed_plugins_dir": _INSTALLED,
        "install_plugin": _INSTALLED,
        "list_installed_plugins": _INSTALLED,
        "load_installed_plugins": _INSTALLED,
        "uninstall_plugin": _INSTALLED,
        "update_plugin": _INSTALLED,
        "LoadedPlugins": _LOADER,
        "load_plugins": _LOADER,
        "resolve_plugins": _LOADER,
        "Plugin": _PLUGIN,
        "PluginError": _PLUGIN,
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
