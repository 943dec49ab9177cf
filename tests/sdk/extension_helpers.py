"""Helpers for the skill, plugin and marketplace tests: skill folders and local git repos."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml


def write_skill(
    folder: Path, name: str, description: str, body: str = "Do it.\n", **extra: Any
) -> Path:
    """An AgentSkills folder `folder/name` with a SKILL.md (extra front matter keys as given)."""
    skill = folder / name
    skill.mkdir(parents=True, exist_ok=True)
    front = yaml.safe_dump({"name": name, "description": description, **extra}, sort_keys=False)
    (skill / "SKILL.md").write_text(f"---\n{front}---\n{body}")
    return skill


class GitRepo:
    """A local git repository (a working copy) that tests commit to and clone from."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "t@example.com")
        self.git("config", "user.name", "Test")

    @property
    def url(self) -> str:
        """A `file://` URL ending in .git: cloned like any remote repository."""
        link = self.path.parent / f"{self.path.name}.git"
        if not link.exists():
            link.symlink_to(self.path / ".git")
        return f"file://{link}"

    def git(self, *args: str) -> str:
        """Run git in the repository; its output."""
        done = subprocess.run(
            ["git", *args], cwd=self.path, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def commit(self, message: str = "change") -> str:
        """Commit everything; return the commit id."""
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")
