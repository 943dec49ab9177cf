"""Marketplaces: `.plugin/marketplace.json` listing skills and plugins, and installing them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from extension_helpers import GitRepo, write_skill
from openhands.sdk.marketplace import (
    Marketplace,
    MarketplaceError,
    MarketplaceNotFoundError,
    MarketplacePluginEntry,
)
from openhands.sdk.plugin.types import PluginAuthor
from openhands.sdk.skills import install_skills_from_marketplace, list_installed_skills
from pydantic import ValidationError


def make_marketplace(root: Path, skills: list[dict], plugins: list[dict] | None = None) -> Path:
    (root / ".plugin").mkdir(parents=True, exist_ok=True)
    (root / ".plugin" / "marketplace.json").write_text(
        json.dumps(
            {
                "name": "team-tools",
                "owner": {"name": "DevTools", "email": "dev@example.com"},
                "description": "What the team uses.",
                "skills": skills,
                "plugins": plugins or [],
            }
        )
    )
    return root


def test_a_marketplace_is_read_with_its_entries(tmp_path: Path) -> None:
    root = make_marketplace(
        tmp_path,
        [{"name": "greeter", "source": "./skills/greeter", "description": "Greets."}],
        [{"name": "fmt", "source": {"source": "github", "repo": "o/fmt"}, "author": "Ada"}],
    )

    market = Marketplace.load(root)

    assert (market.name, market.description) == ("team-tools", "What the team uses.")
    assert market.owner is not None and market.owner.email == "dev@example.com"
    assert market.skills[0].source == "./skills/greeter"
    plugin = market.get_plugin("fmt")
    assert plugin is not None and plugin.source_string() == "github:o/fmt"
    assert plugin.author == PluginAuthor(name="Ada")
    assert market.path == str(root.resolve())


def test_a_missing_folder_or_manifest_is_a_file_not_found_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="Marketplace directory not found"):
        Marketplace.load(tmp_path / "nowhere")
    with pytest.raises(MarketplaceNotFoundError, match=r"\.plugin/marketplace\.json"):
        Marketplace.load(tmp_path)


def test_a_manifest_that_is_not_json_names_the_file(tmp_path: Path) -> None:
    (tmp_path / ".plugin").mkdir()
    (tmp_path / ".plugin" / "marketplace.json").write_text("{not json")

    with pytest.raises(MarketplaceError, match=r"Invalid JSON in .*marketplace\.json"):
        Marketplace.load(tmp_path)


@pytest.mark.parametrize(
    ("manifest", "field"),
    [
        ({"owner": {"name": "DevTools"}}, "name"),
        ({"name": "team-tools"}, "owner"),
        (
            {
                "name": "t",
                "owner": {"name": "o"},
                "plugins": [{"name": "p", "source": {"source": "github"}}],
            },
            "GitHub source requires 'repo' field",
        ),
    ],
)
def test_a_wrong_field_is_a_validation_error_naming_it(
    tmp_path: Path, manifest: dict, field: str
) -> None:
    (tmp_path / ".plugin").mkdir()
    (tmp_path / ".plugin" / "marketplace.json").write_text(json.dumps(manifest))

    with pytest.raises(ValidationError, match=field):
        Marketplace.load(tmp_path)


def test_plugin_sources_resolve_to_a_location_ref_and_subfolder(tmp_path: Path) -> None:
    root = make_marketplace(
        tmp_path,
        [],
        [
            {"name": "local", "source": "./plugins/local"},
            {"name": "absolute", "source": "/opt/plugins/abs"},
            {"name": "gh", "source": {"source": "github", "repo": "o/r", "ref": "v1", "path": "p"}},
            {"name": "git", "source": {"source": "url", "url": "https://git.example/r.git"}},
        ],
    )
    market = Marketplace.load(root)

    def resolved(name: str) -> tuple[str, str | None, str | None]:
        entry = market.get_plugin(name)
        assert entry is not None
        return market.resolve_plugin_source(entry)

    assert resolved("local") == (str(root.resolve() / "plugins" / "local"), None, None)
    assert resolved("absolute") == ("/opt/plugins/abs", None, None)
    assert resolved("gh") == ("github:o/r", "v1", "p")
    assert resolved("git") == ("https://git.example/r.git", None, None)


def test_an_inline_plugin_entry_reads_claude_code_fields_and_becomes_a_manifest() -> None:
    entry = MarketplacePluginEntry.model_validate(
        {
            "name": "mcp-plugin",
            "source": "./plugins/mcp",
            "strict": False,
            "author": "Ada Lovelace <ada@example.com>",
            "entry_command": "start",
            "mcpServers": {"files": {"command": "node"}},
            "lspServers": {"ts": {"command": "typescript-language-server"}},
            "keywords": ["mcp"],
        }
    )

    assert entry.mcp_config == {"files": {"command": "node"}}
    assert entry.lsp_servers == {"ts": {"command": "typescript-language-server"}}
    assert entry.author == PluginAuthor(name="Ada Lovelace", email="ada@example.com")
    manifest = entry.to_plugin_manifest()
    assert (manifest.name, manifest.version, manifest.entry_command) == (
        "mcp-plugin",
        "1.0.0",
        "start",
    )
    assert manifest.author == entry.author


def test_install_local_and_git_skills_and_plugin_skills_skipping_bad_entries(
    tmp_path: Path, git_repo, home: Path
) -> None:
    root = tmp_path / "market"
    write_skill(root / "skills", "greeter", "Greets.")
    repo: GitRepo = git_repo("remote-skills")
    write_skill(repo.path / "skills", "github-tips", "GitHub tips.")
    repo.commit()
    plugin = root / "plugins" / "fmt"
    write_skill(plugin / "skills", "formatting", "Format code.")
    make_marketplace(
        root,
        [
            {"name": "greeter", "source": "./skills/greeter"},
            {"name": "broken", "source": "./skills/missing"},
            {"name": "github-tips", "source": f"{repo.url}"},
        ],
        [{"name": "fmt", "source": "./plugins/fmt"}],
    )
    installed = tmp_path / "installed"

    # github-tips: a git source whose repository root is not a skill: skipped like `broken`.
    names = [i.name for i in install_skills_from_marketplace(root, installed_dir=installed)]

    assert sorted(names) == ["formatting", "greeter"]
    assert [i.name for i in list_installed_skills(installed)] == ["formatting", "greeter"]
    again = install_skills_from_marketplace(root, installed_dir=installed)
    assert again == []  # installed already: left as they are without force
    forced = install_skills_from_marketplace(root, installed_dir=installed, force=True)
    assert sorted(i.name for i in forced) == ["formatting", "greeter"]


def test_a_relative_entry_leading_out_of_the_marketplace_is_skipped(
    tmp_path: Path, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "market"
    write_skill(root / "skills", "greeter", "Greets.")
    write_skill(tmp_path / "elsewhere", "private", "Not the marketplace's.")
    (root / "skills" / "door").symlink_to(tmp_path / "elsewhere" / "private")
    make_marketplace(
        root,
        [
            {"name": "greeter", "source": "./skills/greeter"},
            {"name": "climb", "source": "../elsewhere/private"},
            {"name": "door", "source": "./skills/door"},
        ],
    )
    installed = tmp_path / "installed"

    names = [i.name for i in install_skills_from_marketplace(root, installed_dir=installed)]

    assert names == ["greeter"]
    assert caplog.text.count("leads out of") == 2
