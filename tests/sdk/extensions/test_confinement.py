"""A source folder is checked before an install reads it: no link out, no special file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from openhands.sdk.extensions.confinement import check_confined, link_escapes, subfolder
from openhands.sdk.extensions.errors import ExtensionInstallError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "src"
    (folder / "a" / "b").mkdir(parents=True)
    (folder / "a" / "b" / "file.md").write_text("x")
    (tmp_path / "outside.md").write_text("secret")
    return folder


@pytest.mark.parametrize(
    ("where", "target", "escapes"),
    [
        ("a/link", "b/file.md", False),
        ("a/b/link", "../../a/b/file.md", False),
        ("a/link", "missing/inside.md", False),  # dangling, but inside
        ("link", ".", False),
        ("a/link", "/etc/passwd", True),
        ("a/link", "../../outside.md", True),
        ("link", "..", True),
    ],
)
def test_where_a_link_leads(root: Path, where: str, target: str, escapes: bool) -> None:
    link = root / where
    link.symlink_to(target)
    assert link_escapes(root, link) is escapes


def test_a_link_through_a_link_to_the_root_is_resolved_one_name_at_a_time(root: Path) -> None:
    (root / "a" / "up").symlink_to("..")  # the root itself: inside
    (root / "a" / "sneaky").symlink_to("up/../outside.md")  # "a/outside.md" as text
    assert link_escapes(root, root / "a" / "up") is False
    assert link_escapes(root, root / "a" / "sneaky") is True


def test_a_loop_counts_as_escaping(root: Path) -> None:
    (root / "x").symlink_to("y")
    (root / "y").symlink_to("x")
    assert link_escapes(root, root / "x") is True


def test_check_confined_names_the_first_bad_entry(root: Path) -> None:
    check_confined(root, what="skill source s")  # nothing wrong yet
    (root / "a" / "b" / "leak").symlink_to("/etc")
    with pytest.raises(ExtensionInstallError, match=r"skill source s: 'a/b/leak' is a symbolic"):
        check_confined(root, what="skill source s")


def test_pipes_and_other_special_files_are_refused(root: Path) -> None:
    os.mkfifo(root / "a" / "wait.md")
    with pytest.raises(ExtensionInstallError, match=r"'a/wait.md' is not a regular file"):
        check_confined(root, what="s")


def test_git_metadata_is_not_checked(root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "weird").symlink_to("/etc")
    check_confined(root, what="s")


def test_subfolder_refuses_links_and_climbing(root: Path, tmp_path: Path) -> None:
    (root / "via").symlink_to(root / "a")
    assert subfolder(root, "a/b/", what="r") == root / "a" / "b"
    with pytest.raises(ExtensionInstallError, match=r"passes through 'via', a symbolic link"):
        subfolder(root, "via/b", what="r")
    with pytest.raises(ExtensionInstallError, match=r"must be a folder inside r"):
        subfolder(root, "a/../..", what="r")
