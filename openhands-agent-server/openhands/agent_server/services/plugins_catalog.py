"""The plugins `/api/plugins` lists, fetches and describes.

Available plugins, lowest precedence first (a later one wins a name): the user's
(`~/.agents/plugins`, `~/.openhands/plugins`, then the enabled installed ones), the project's
(`<project>/.agents/plugins`, `<project>/.openhands/plugins`). A project plugin the agent's
sandbox hides is left out. A plugin's contents are its skills (commands included) and its
files (links not followed, `.git` left out, at most `MAX_FILES`).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from openhands.agent_server.errors import ServerError
from openhands.agent_server.services.skills_catalog import PublicCatalog
from openhands.sdk.plugin.plugin import Plugin
from openhands.sdk.wire.plugins import (
    FetchPluginResponse,
    MarketplacePluginInfo,
    PluginSkillSummary,
)

logger = logging.getLogger(__name__)

MAX_FILES = 2000
"""Most files a plugin's listing names (a whole repository installed as a plugin is big)."""
USER_DIRS = (Path(".agents") / "plugins", Path(".openhands") / "plugins")
"""Where a user's (under the home folder) and a project's plugins live."""
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class PluginSourceError(ServerError):
    """A plugin source that cannot be pinned; `code` says why (the reference's codes)."""

    def __init__(self, message: str, *, code: str, status_code: int) -> None:
        super().__init__(message, code=code)
        self.status_code = status_code


def available(
    *, load_user: bool, project_dir: Path | None, hidden: Callable[[str | Path], bool]
) -> list[Plugin]:
    """The plugins available here (see the module docstring)."""
    from openhands.sdk.plugin.installed import get_installed_plugins_dir, load_installed_plugins

    groups: list[list[Plugin]] = []
    if load_user:
        installed = get_installed_plugins_dir().resolve()
        user = [p for sub in USER_DIRS for p in _plugins_in(Path.home() / sub, skip=installed)]
        groups.append(_first_of_each(user + load_installed_plugins()))
    if project_dir is not None:
        project = [p for sub in USER_DIRS for p in _plugins_in(project_dir / sub)]
        groups.append(_first_of_each([p for p in project if not hidden(p.path)]))
    merged: dict[str, Plugin] = {}
    for group in groups:
        merged.update((plugin.name, plugin) for plugin in group)
    return list(merged.values())


def contents(plugin: Plugin) -> tuple[list[PluginSkillSummary], list[str]]:
    """A plugin's skills (its commands included) and its files."""
    skills = [
        PluginSkillSummary(name=skill.name, description=skill.description)
        for skill in plugin.get_all_skills()
    ]
    return skills, _files(Path(plugin.path))


def contents_of(folder: str | Path) -> tuple[list[PluginSkillSummary], list[str]] | None:
    """The contents of the plugin in `folder`, or None when it does not load."""
    try:
        return contents(Plugin.load(folder))
    except (OSError, ValueError) as exc:
        logger.warning("The plugin in %s does not load: %s", folder, exc)
        return None


def fetch(
    source: str,
    ref: str | None,
    repo_path: str | None,
    secrets: Mapping[str, str],
) -> FetchPluginResponse:
    """Fetch (clone or find) a plugin without installing it, and say what it is."""
    from openhands.sdk.extensions.errors import ExtensionFetchError
    from openhands.sdk.plugin.fetch import fetch_plugin_with_resolution

    location = expand(source, secrets, "source")
    wanted = expand(ref, secrets, "ref") if ref is not None else None
    try:
        folder, commit = fetch_plugin_with_resolution(location, ref=wanted, repo_path=repo_path)
    except ExtensionFetchError as exc:
        text = str(exc).replace(location, source) if location != source else str(exc)
        timed_out = "longer than" in text
        raise PluginSourceError(
            text,
            code="fetch_timeout" if timed_out else "source_unavailable",
            status_code=504 if timed_out else 502,
        ) from None
    try:
        plugin = Plugin.load(folder)
    except (OSError, ValueError) as exc:
        raise PluginSourceError(
            f"{source} holds no valid plugin: {exc}", code="invalid_plugin", status_code=422
        ) from None
    return FetchPluginResponse(
        path=str(folder),
        resolved_ref=commit,
        source=source,
        repo_path=repo_path,
        manifest=plugin.manifest.model_dump(mode="json", exclude_none=True),
        skills=[skill.name for skill in plugin.skills],
        commands=[command.name for command in plugin.commands],
    )


def marketplace_plugins(catalog: PublicCatalog, installed: set[str]) -> list[MarketplacePluginInfo]:
    """The public catalog's true plugins with their coordinates and local contents."""
    found: list[MarketplacePluginInfo] = []
    for entry in catalog.entries():
        if not entry.plugin:
            continue
        info = MarketplacePluginInfo(
            name=entry.name,
            description=entry.description,
            source=entry.source,
            ref=entry.ref,
            repo_path=entry.repo_path,
            installed=entry.name in installed,
        )
        if entry.ref is None and entry.repo_path is None and Path(entry.source).is_dir():
            loaded = contents_of(entry.source)
            if loaded is not None:
                skills, files = loaded
                info = info.model_copy(
                    update={"path": entry.source, "skills": skills, "files": files}
                )
        found.append(info)
    return found


def expand(text: str, secrets: Mapping[str, str], field: str) -> str:
    """`text` with each `${NAME}` replaced by that secret (PluginSourceError if none)."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in secrets:
            raise PluginSourceError(
                f"{field} names ${{{name}}}, which no secret of the request gives",
                code="missing_secret",
                status_code=422,
            )
        return secrets[name]

    return _PLACEHOLDER.sub(value, text)


def _plugins_in(folder: Path, skip: Path | None = None) -> list[Plugin]:
    if not folder.is_dir():
        return []
    found: list[Plugin] = []
    for child in sorted(folder.iterdir()):
        if not child.is_dir() or child.name.startswith(".") or child.resolve() == skip:
            continue
        try:
            found.append(Plugin.load(child))
        except (OSError, ValueError) as exc:
            logger.warning("Skipping plugin %s: %s", child, exc)
    return found


def _first_of_each(plugins: list[Plugin]) -> list[Plugin]:
    seen: dict[str, Plugin] = {}
    for plugin in plugins:
        seen.setdefault(plugin.name, plugin)
    return list(seen.values())


def _files(root: Path) -> list[str]:
    files: list[str] = []
    for folder, subfolders, names in os.walk(root):  # links to folders are not followed
        subfolders[:] = sorted(d for d in subfolders if d != ".git")
        files += [(Path(folder) / name).relative_to(root).as_posix() for name in names]
        if len(files) >= MAX_FILES:
            break
    return sorted(files)[:MAX_FILES]
