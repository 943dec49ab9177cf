"""Installed plugins: plugin folders copied into `~/.openhands/plugins/installed/`.

Same life cycle as installed skills (see `openhands.sdk.extensions.installation`): install
from a folder, a git URL or `github:owner/repo`; list, enable, disable, update, uninstall;
`load_installed_plugins()` gives the enabled ones.
"""

from __future__ import annotations

from pathlib import Path

from openhands.sdk.extensions.installation import (
    InstallationInfo,
    InstallationManager,
    LoadedExtension,
)
from openhands.sdk.plugin.fetch import fetch_plugin_with_resolution
from openhands.sdk.plugin.plugin import Plugin

__all__ = [
    "InstalledPluginInfo",
    "disable_plugin",
    "enable_plugin",
    "get_installed_plugin",
    "get_installed_plugins_dir",
    "install_plugin",
    "list_installed_plugins",
    "load_installed_plugins",
    "uninstall_plugin",
    "update_plugin",
]

InstalledPluginInfo = InstallationInfo
"""The manifest record of one installed plugin (name, version, source, refs, enabled)."""


def get_installed_plugins_dir() -> Path:
    """The default install folder: `~/.openhands/plugins/installed/`."""
    return Path.home() / ".openhands" / "plugins" / "installed"


def _describe(plugin: Plugin) -> LoadedExtension:
    return LoadedExtension(plugin.name, plugin.version, plugin.description)


def _fetch(source: str, ref: str | None, repo_path: str | None, update: bool):
    return fetch_plugin_with_resolution(source, ref=ref, update=update, repo_path=repo_path)


def _manager(installed_dir: Path | None) -> InstallationManager[Plugin]:
    return InstallationManager(
        installed_dir if installed_dir is not None else get_installed_plugins_dir(),
        kind="plugin",
        manifest_key="extensions",
        load=Plugin.load,
        describe=_describe,
        fetch=_fetch,
    )


def install_plugin(
    source: str,
    ref: str | None = None,
    repo_path: str | None = None,
    installed_dir: Path | None = None,
    force: bool = False,
) -> InstalledPluginInfo:
    """Install the plugin at `source`; `force` replaces one of the same name.

    Raises PluginFetchError, or ExtensionInstallError (a ValueError) for a folder that is not
    a plugin or a name installed already.
    """
    return _manager(installed_dir).install(source, ref=ref, repo_path=repo_path, force=force)


def uninstall_plugin(name: str, installed_dir: Path | None = None) -> bool:
    """Remove an installed plugin; False when it was not installed."""
    return _manager(installed_dir).uninstall(name)


def enable_plugin(name: str, installed_dir: Path | None = None) -> bool:
    """Load an installed plugin again; False when it is not installed."""
    return _manager(installed_dir).enable(name)


def disable_plugin(name: str, installed_dir: Path | None = None) -> bool:
    """Keep a plugin installed without loading it; False when it is not installed."""
    return _manager(installed_dir).disable(name)


def list_installed_plugins(installed_dir: Path | None = None) -> list[InstalledPluginInfo]:
    """Every installed plugin, enabled or not (the manifest reconciled with the folders)."""
    return _manager(installed_dir).list_installed()


def load_installed_plugins(installed_dir: Path | None = None) -> list[Plugin]:
    """The enabled installed plugins, loaded."""
    return _manager(installed_dir).load_installed()


def get_installed_plugin(
    name: str, installed_dir: Path | None = None
) -> InstalledPluginInfo | None:
    """The record of one installed plugin, or None."""
    return _manager(installed_dir).get(name)


def update_plugin(name: str, installed_dir: Path | None = None) -> InstalledPluginInfo | None:
    """Fetch an installed plugin again from its source and ref; None when not installed."""
    return _manager(installed_dir).update(name)
