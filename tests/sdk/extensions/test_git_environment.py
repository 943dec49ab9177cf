"""Fetching a skill or plugin repository runs git with what it needs of the environment
(programs, certificates, proxies, the ssh agent) and none of the server's keys."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from openhands.sdk.extensions.git import fetch_repository, git_environment


def test_git_gets_no_key_of_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-server-key")
    monkeypatch.setenv("OH_SECRET_KEY", "sealing")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    env = git_environment()
    assert "LLM_API_KEY" not in env and "OH_SECRET_KEY" not in env
    assert env["HTTPS_PROXY"] == "http://proxy.invalid:3128"
    assert env["GIT_TERMINAL_PROMPT"] == "0" and "PATH" in env


def test_a_fetch_runs_git_with_that_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `git` on PATH that records its environment sees no secret during a real fetch."""
    origin = tmp_path / "origin"
    origin.mkdir()
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "x"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=origin, check=True
        )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    seen = tmp_path / "seen.env"
    real_git = subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip()
    (bin_dir / "git").write_text(f'#!/bin/sh\nenv >> {seen}\nexec {real_git} "$@"\n')
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("LLM_API_KEY", "sk-server-key")
    fetch_repository(f"file://{origin}", cache_dir=tmp_path / "cache")
    recorded = seen.read_text()
    assert "GIT_TERMINAL_PROMPT=0" in recorded
    assert "sk-server-key" not in recorded
