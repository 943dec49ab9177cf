"""Marketplaces: `.plugin/marketplace.json` listing skills and plugins, and installing them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from extension_helpers import GitRepo, write_skill
from openhands.sdk.marketplace import Marketplace, MarketplaceError
from openhands.sdk.skills import install_skills_from_marketplace, list_installed_skills


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
    assert plugin.author == {"name": "Ada"}
    assert market.path == str(root.resolve())


def test_a_missing_or_malformed_marketplace_names_the_problem(tmp_path: Path) -> None:
    with pytest.raises(MarketplaceError, match=r"\.plugin/marketplace\.json"):
        Marketplace.load(tmp_path)
    (tmp_path / ".plugin").mkdir()
    (tmp_path / ".plugin" / "marketplace.json").write_text('{"skills": []}')
    with pytest.raises(MarketplaceError, match="name"):
        Marketplace.load(tmp_path)


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
