"""Folders for the skill, plugin and agent-part route tests: skills, plugins, a public catalog,
and a server whose home and public catalog are the test's own."""

from __future__ import annotations

import json
from pathlib import Path

from ..harness import ServerProcess

KEY = "extension-routes-key"


def write_skill(folder: Path, name: str, description: str, body: str = "Do the thing.") -> Path:
    """An AgentSkills folder `folder/name` with its SKILL.md."""
    skill = folder / name
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n{body}\n", encoding="utf-8"
    )
    return skill


def write_plugin(folder: Path, name: str, *, skill: str | None = None) -> Path:
    """A plugin folder `folder/name` with a manifest, optionally a skill and a command."""
    plugin = folder / name
    (plugin / ".plugin").mkdir(parents=True, exist_ok=True)
    manifest = {"name": name, "version": "2.0.0", "description": f"The {name} plugin."}
    (plugin / ".plugin" / "plugin.json").write_text(json.dumps(manifest))
    if skill is not None:
        write_skill(plugin / "skills", skill, f"{skill} from {name}")
    (plugin / "commands").mkdir(exist_ok=True)
    (plugin / "commands" / "forecast.md").write_text("---\ndescription: Forecast.\n---\nSay it.\n")
    return plugin


def write_catalog(root: Path) -> Path:
    """A public catalog: skills alpha and beta, a plugin city-weather; its marketplace lists
    the plugin and alpha; marketplaces/default.json lists alpha only."""
    catalog = root / "catalog"
    write_skill(catalog / "skills", "alpha", "Public alpha.")
    write_skill(catalog / "skills", "beta", "Public beta.")
    write_plugin(catalog / "plugins", "city-weather", skill="weather-report")
    (catalog / ".plugin").mkdir(parents=True, exist_ok=True)
    marketplace = {
        "name": "test-catalog",
        "owner": {"name": "Test maintainers"},  # required by the marketplace format
        "plugins": [
            {"name": "city-weather", "source": "./plugins/city-weather", "description": "W."},
            {"name": "alpha", "source": "./skills/alpha", "description": "A."},
        ],
    }
    (catalog / ".plugin" / "marketplace.json").write_text(json.dumps(marketplace))
    (catalog / "marketplaces").mkdir(exist_ok=True)
    listed = {"name": "default", "skills": [{"name": "alpha", "source": "./skills/alpha"}]}
    (catalog / "marketplaces" / "default.json").write_text(json.dumps(listed))
    return catalog


def extension_server(root: Path) -> ServerProcess:
    """A keyed server whose HOME is `root/home` and whose public catalog is in `root`."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "OH_SESSION_API_KEYS": KEY,
        "HOME": str(home),
        "OH_PUBLIC_SKILLS_SOURCE": str(write_catalog(root)),
    }
    return ServerProcess(root / "conversations", env=env)
