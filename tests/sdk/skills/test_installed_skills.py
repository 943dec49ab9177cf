"""Installing skills into a user folder with a manifest: from folders and git repositories."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from extension_helpers import GitRepo, write_skill
from openhands.sdk import AgentContext
from openhands.sdk.context.user_skills import skill_installation
from openhands.sdk.errors import InvalidStateError
from openhands.sdk.extensions.errors import ExtensionInstallError
from openhands.sdk.skills import (
    SkillFetchError,
    disable_skill,
    enable_skill,
    get_installed_skill,
    get_installed_skills_dir,
    install_skill,
    list_installed_skills,
    load_installed_skills,
    uninstall_skill,
    update_skill,
)


def _manifest(installed: Path) -> dict:
    return json.loads((installed / ".installed.json").read_text())


def test_install_list_disable_enable_uninstall_a_local_skill(tmp_path: Path) -> None:
    source = write_skill(tmp_path / "src", "code-style", "House style.")
    other = write_skill(tmp_path / "src", "rot13", "ROT13.")
    installed = tmp_path / "installed"

    info = install_skill(str(source), installed_dir=installed)
    install_skill(str(other), installed_dir=installed)

    assert info.name == "code-style" and info.description == "House style."
    assert (installed / "code-style" / "SKILL.md").is_file()
    assert info.install_path == installed / "code-style" and info.resolved_ref is None
    assert [i.name for i in list_installed_skills(installed)] == ["code-style", "rot13"]
    assert _manifest(installed)["skills"]["code-style"]["source"] == str(source)

    assert disable_skill("rot13", installed_dir=installed) is True
    assert [s.name for s in load_installed_skills(installed)] == ["code-style"]
    assert _manifest(installed)["skills"]["rot13"]["enabled"] is False
    assert enable_skill("rot13", installed_dir=installed) is True
    assert [s.name for s in load_installed_skills(installed)] == ["code-style", "rot13"]

    assert uninstall_skill("rot13", installed_dir=installed) is True
    assert not (installed / "rot13").exists()
    assert list(_manifest(installed)["skills"]) == ["code-style"]
    assert uninstall_skill("rot13", installed_dir=installed) is False
    assert disable_skill("nope", installed_dir=installed) is False


def test_installing_twice_needs_force(tmp_path: Path) -> None:
    source = write_skill(tmp_path / "src", "one", "First.")
    installed = tmp_path / "installed"
    install_skill(str(source), installed_dir=installed)
    (source / "SKILL.md").write_text("---\nname: one\ndescription: Second.\n---\nNew.\n")

    with pytest.raises(ExtensionInstallError, match="force=True"):
        install_skill(str(source), installed_dir=installed)
    info = install_skill(str(source), installed_dir=installed, force=True)

    assert info.description == "Second."
    assert (installed / "one" / "SKILL.md").read_text().endswith("New.\n")


def test_a_folder_without_skill_md_is_refused_and_nothing_is_installed(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    installed = tmp_path / "installed"

    with pytest.raises(ExtensionInstallError, match=r"SKILL\.md"):
        install_skill(str(tmp_path / "empty"), installed_dir=installed)
    with pytest.raises(SkillFetchError, match="not a folder"):
        install_skill(str(tmp_path / "missing"), installed_dir=installed)
    assert list_installed_skills(installed) == []


def test_listing_reconciles_the_manifest_with_the_folders(tmp_path: Path) -> None:
    installed = tmp_path / "installed"
    install_skill(
        str(write_skill(tmp_path / "src", "gone", "Removed by hand.")), installed_dir=installed
    )
    shutil.rmtree(installed / "gone")
    write_skill(installed, "dropped-in", "Copied by hand.")

    names = [i.name for i in list_installed_skills(installed)]

    assert names == ["dropped-in"]
    assert list(_manifest(installed)["skills"]) == ["dropped-in"]


def test_install_and_update_from_a_git_repository(tmp_path: Path, git_repo, home: Path) -> None:
    repo: GitRepo = git_repo("skills")
    write_skill(repo.path / "skills", "greeter", "Greets v1.", body="Say hi.\n")
    first = repo.commit("v1")
    repo.git("tag", "v1")
    write_skill(repo.path / "skills", "greeter", "Greets v2.", body="Say hello.\n")
    second = repo.commit("v2")
    installed = tmp_path / "installed"

    pinned = install_skill(repo.url, ref="v1", repo_path="skills/greeter", installed_dir=installed)
    assert (pinned.resolved_ref, pinned.requested_ref) == (first, "v1")
    assert pinned.description == "Greets v1."

    latest = install_skill(
        repo.url, repo_path="skills/greeter", installed_dir=installed, force=True
    )
    assert latest.resolved_ref == second and latest.description == "Greets v2."

    write_skill(repo.path / "skills", "greeter", "Greets v3.", body="Say hey.\n")
    third = repo.commit("v3")
    disable_skill("greeter", installed_dir=installed)
    updated = update_skill("greeter", installed_dir=installed)

    assert updated is not None and updated.resolved_ref == third
    assert updated.enabled is False  # an update keeps the enabled flag
    assert (installed / "greeter" / "SKILL.md").read_text().endswith("Say hey.\n")
    assert not (installed / "greeter" / ".git").exists()
    assert get_installed_skill("greeter", installed)
    assert update_skill("nope", installed_dir=installed) is None


def test_a_git_ref_that_does_not_exist_is_named(tmp_path: Path, git_repo, home: Path) -> None:
    repo: GitRepo = git_repo("skills")
    write_skill(repo.path, "x", "X.")
    repo.commit()

    with pytest.raises(SkillFetchError, match="no-such-tag"):
        install_skill(repo.url, ref="no-such-tag", repo_path="x", installed_dir=tmp_path / "i")
    with pytest.raises(SkillFetchError, match="git clone"):
        install_skill(f"file://{tmp_path}/nothing.git", installed_dir=tmp_path / "i")


def test_installed_skills_reach_the_agent_with_user_skills(home: Path, tmp_path: Path) -> None:
    install_skill(str(write_skill(tmp_path / "src", "on-skill", "Enabled.")))
    install_skill(str(write_skill(tmp_path / "src", "off-skill", "Disabled.")))
    disable_skill("off-skill")
    assert get_installed_skills_dir() == home / ".openhands" / "skills" / "installed"

    context = AgentContext(load_user_skills=True)

    assert [s.name for s in context.skills] == ["on-skill"]


def test_the_context_reads_installed_skills_and_cannot_install(tmp_path: Path) -> None:
    installed = tmp_path / "installed"
    install_skill(str(write_skill(tmp_path / "src", "kept", "Kept.")), installed_dir=installed)
    reader = skill_installation(installed)

    assert [s.name for s in reader.load_installed()] == ["kept"]
    with pytest.raises(InvalidStateError, match="install_skill"):
        reader.install(str(write_skill(tmp_path / "src", "more", "More.")))
    assert [i.name for i in list_installed_skills(installed)] == ["kept"]


def test_what_a_killed_install_left_is_removed_at_the_next_change(tmp_path: Path) -> None:
    source = write_skill(tmp_path / "src", "code-style", "House style.")
    installed = tmp_path / "installed"
    install_skill(str(source), installed_dir=installed)
    # A copy killed before its rename, and a manifest write killed before its own.
    staging = installed / ".rot13.k2j4h6g8"
    (staging / "copy").mkdir(parents=True)
    manifest_tmp = installed / "..installed.json.abcd1234.tmp"  # write_atomic: ".<name>."
    manifest_tmp.write_text("{}")
    old = 1_000_000_000
    import os

    os.utime(manifest_tmp, (old, old))

    assert [i.name for i in list_installed_skills(installed)] == ["code-style"]
    assert not staging.exists() and not manifest_tmp.exists()
    assert (installed / "code-style" / "SKILL.md").is_file()
