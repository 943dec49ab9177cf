"""`agent_environment`: the one rule for what the agent's processes inherit."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from openhands.sdk.workspace import (
    AGENT_ENV_VAR,
    agent_environment,
    configure_agent_environment,
    is_denied,
    run_shell,
)
from openhands.sdk.workspace.agent_env import AGENT_PATH_VAR


@pytest.mark.parametrize(
    "name",
    [
        "OH_SESSION_API_KEYS",
        "OH_SECRET_KEY",
        "OH_CONVERSATIONS_PATH",
        "LLM_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "openai_api_key",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "GITHUB_TOKEN",
        "HF_TOKEN",
        "LITELLM_MASTER_KEY",
        "AZURE_CLIENT_SECRET",
        "PGPASSWORD",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ],
)
def test_server_secrets_are_denied(name: str) -> None:
    assert is_denied(name)


@pytest.mark.parametrize(
    "name",
    ["PATH", "HOME", "LANG", "TERM", "LLM_MODEL", "TOKENIZERS_PARALLELISM", "VIRTUAL_ENV"],
)
def test_ordinary_variables_are_kept(name: str) -> None:
    assert not is_denied(name)


def test_denied_variables_are_removed_and_the_rest_kept() -> None:
    base = {"PATH": "/usr/bin", "LLM_API_KEY": "sk-1", "OH_SESSION_API_KEYS": "k", "HOME": "/h"}

    assert agent_environment(base, passthrough=()) == {"PATH": "/usr/bin", "HOME": "/h"}


def test_oh_agent_env_passes_listed_names_through() -> None:
    base = {
        "GITHUB_TOKEN": "ghp-wanted",
        "OPENAI_API_KEY": "sk-unwanted",
        AGENT_ENV_VAR: " GITHUB_TOKEN , ,NOT_SET",
    }

    env = agent_environment(base)

    assert env["GITHUB_TOKEN"] == "ghp-wanted"
    assert "OPENAI_API_KEY" not in env
    assert "NOT_SET" not in env


def test_an_explicit_passthrough_replaces_oh_agent_env() -> None:
    base = {"GITHUB_TOKEN": "a", "HF_TOKEN": "b", AGENT_ENV_VAR: "GITHUB_TOKEN"}

    env = agent_environment(base, passthrough=["HF_TOKEN"])

    assert env == {"HF_TOKEN": "b"}


def test_the_default_base_is_this_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-parent")
    monkeypatch.setenv("OH_TEST_PASSED", "visible")
    monkeypatch.setenv(AGENT_ENV_VAR, "OH_TEST_PASSED")

    env = agent_environment()

    assert "LLM_API_KEY" not in env
    assert env["OH_TEST_PASSED"] == "visible"


def test_configured_passthrough_replaces_oh_agent_env_until_reset() -> None:
    base = {"GITHUB_TOKEN": "a", "HF_TOKEN": "b", AGENT_ENV_VAR: "GITHUB_TOKEN"}
    configure_agent_environment(passthrough=["HF_TOKEN"])
    try:
        configured = agent_environment(base)
    finally:
        configure_agent_environment(passthrough=None)

    assert configured == {"HF_TOKEN": "b"}
    assert agent_environment(base) == {"GITHUB_TOKEN": "a"}


def test_oh_agent_path_is_the_agent_s_path_and_is_itself_withheld() -> None:
    base = {"PATH": "/app/.venv/bin:/usr/bin", AGENT_PATH_VAR: "/opt/project/bin:/usr/bin"}

    env = agent_environment(base, passthrough=())

    assert env == {"PATH": "/opt/project/bin:/usr/bin"}


def test_an_empty_oh_agent_path_keeps_this_process_s_path() -> None:
    base = {"PATH": "/usr/bin", AGENT_PATH_VAR: ""}

    assert agent_environment(base, passthrough=()) == {"PATH": "/usr/bin"}


def test_a_shell_command_finds_programs_on_oh_agent_path_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_bin = tmp_path / "project" / "bin"
    agent_bin.mkdir(parents=True)
    tool = agent_bin / "python"
    tool.write_text('#!/bin/sh\necho "the agent\'s python"\n')
    tool.chmod(0o755)
    monkeypatch.setenv(AGENT_PATH_VAR, f"{agent_bin}:{os.environ['PATH']}")

    result = run_shell("python", cwd=tmp_path, timeout=60)

    assert result.output.strip() == "the agent's python"
    assert shutil.which("python") != str(tool)  # this process's own search is unchanged
