"""Plugins: a folder of skills, hooks, MCP servers, agents and commands; loaded into a
conversation, installed from folders and git repositories."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from extension_helpers import GitRepo, write_skill
from openhands.sdk import Agent, LocalConversation, Message, MessageToolCall, TextContent
from openhands.sdk.event import ObservationEvent
from openhands.sdk.extensions.errors import ExtensionInstallError
from openhands.sdk.plugin import (
    Plugin,
    PluginError,
    PluginFetchError,
    PluginSource,
    disable_plugin,
    enable_plugin,
    install_plugin,
    list_installed_plugins,
    load_installed_plugins,
    load_plugins,
    uninstall_plugin,
    update_plugin,
)
from openhands.sdk.testing import TestLLM

TOOLS_SERVER = Path(__file__).parents[1] / "mcp" / "servers" / "tools_server.py"


def make_plugin(root: Path, name: str = "code-quality", *, mcp: bool = False) -> Path:
    folder = root / name
    (folder / ".plugin").mkdir(parents=True)
    (folder / ".plugin" / "plugin.json").write_text(
        json.dumps(
            {
                "name": name,
                "version": "1.2.0",
                "description": "Lint things.",
                "author": "Ada <ada@example.com>",
            }
        )
    )
    write_skill(folder / "skills", "python-linting", "Lint Python with ruff.", triggers=["lint"])
    (folder / "hooks").mkdir()
    (folder / "hooks" / "hooks.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PostToolUse": [
                        {
                            "matcher": "*",
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": 'echo "$OPENHANDS_TOOL_NAME" >> ${CLAUDE_PLUGIN_ROOT}/hook.log',
                                }
                            ],
                        }
                    ]
                }
            }
        )
    )
    (folder / "commands").mkdir()
    (folder / "commands" / "review.md").write_text(
        "---\ndescription: Review the diff.\nallowed-tools: terminal, file_editor\n---\nReview it.\n"
    )
    (folder / "agents").mkdir()
    (folder / "agents" / "linter.md").write_text(
        "---\nname: linter\ndescription: Lints.\n---\nLint.\n"
    )
    if mcp:
        (folder / ".mcp.json").write_text(
            json.dumps(
                {"mcpServers": {"tools": {"command": sys.executable, "args": [str(TOOLS_SERVER)]}}}
            )
        )
    return folder


def test_a_plugin_folder_loads_every_part(tmp_path: Path) -> None:
    plugin = Plugin.load(make_plugin(tmp_path, mcp=True))

    assert (plugin.name, plugin.version, plugin.description) == (
        "code-quality",
        "1.2.0",
        "Lint things.",
    )
    assert plugin.manifest.author is not None and plugin.manifest.author.email == "ada@example.com"
    assert [s.name for s in plugin.skills] == ["python-linting"]
    assert plugin.hooks is not None and len(plugin.hooks.post_tool_use) == 1
    assert str(tmp_path / "code-quality") in plugin.hooks.post_tool_use[0].hooks[0].command
    assert list(plugin.mcp_config) == ["tools"]
    assert [a.name for a in plugin.agents] == ["linter"] and plugin.agents[0].level == "plugin"
    [command] = plugin.commands
    assert (command.name, command.allowed_tools) == ("review", ["terminal", "file_editor"])
    assert [s.name for s in plugin.get_all_skills()] == ["python-linting", "code-quality:review"]
    assert plugin.get_all_skills()[1].get_triggers() == ["/code-quality:review"]


def test_a_plugin_without_manifest_is_named_after_its_folder(tmp_path: Path) -> None:
    write_skill(tmp_path / "bare" / "skills", "one", "One.")

    assert Plugin.load(tmp_path / "bare").name == "bare"


def test_a_malformed_plugin_names_the_file(tmp_path: Path) -> None:
    folder = make_plugin(tmp_path)
    (folder / "hooks" / "hooks.json").write_text("{not json")

    with pytest.raises(PluginError, match=r"hooks\.json"):
        Plugin.load(folder)


def test_load_plugins_merges_skills_mcp_and_hooks_later_ones_winning(tmp_path: Path) -> None:
    first = make_plugin(tmp_path, "first")
    second = make_plugin(tmp_path, "second")
    agent = Agent(llm=TestLLM.from_messages([]), tools=[])

    merged, hooks = load_plugins([PluginSource(source=str(first)), str(second)], agent)

    assert merged.agent_context is not None
    names = [s.name for s in merged.agent_context.skills]
    assert names.count("python-linting") == 1
    assert {"first:review", "second:review"} <= set(names)
    assert hooks is not None and len(hooks.post_tool_use) == 2
    with pytest.raises(PluginError, match="exceeds maximum of 1"):
        load_plugins([str(first)], agent, max_skills=1)


@pytest.mark.slow  # starts the plugin's MCP server
def test_a_conversation_with_a_plugin_gets_its_mcp_tools_skills_and_hooks(
    tmp_path: Path, workspace_dir: Path
) -> None:
    folder = make_plugin(tmp_path, mcp=True)
    llm = TestLLM.from_messages(
        [
            Message(
                role="assistant",
                tool_calls=[
                    MessageToolCall(id="c1", name="add", arguments=json.dumps({"a": 2, "b": 40}))
                ],
            ),
            Message(role="assistant", content=[TextContent(text="42")]),
        ]
    )
    conversation = LocalConversation(
        Agent(llm=llm, tools=[]), workspace_dir, plugins=[PluginSource(source=str(folder))]
    )
    try:
        assert "add" in conversation.tools  # the plugin's MCP server started
        assert conversation.resolved_plugins is not None
        assert conversation.resolved_plugins[0].source == str(folder)
        conversation.send_message("lint and add 2 and 40")
        conversation.run()
    finally:
        conversation.close()

    [result] = [e.observation for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert result.text == "42"
    assert (folder / "hook.log").read_text().split() == ["add"]  # the PostToolUse hook
    assert "python-linting" in llm.calls[0][0].text or any(
        "python-linting" in m.text for m in llm.calls[0]
    )


def test_install_plugins_from_a_folder_and_a_git_repository(
    tmp_path: Path, git_repo, home: Path
) -> None:
    installed = tmp_path / "installed"
    local = install_plugin(str(make_plugin(tmp_path / "src", "local-one")), installed_dir=installed)
    repo: GitRepo = git_repo("monorepo")
    make_plugin(repo.path / "plugins", "from-git")
    commit = repo.commit()

    remote = install_plugin(repo.url, repo_path="plugins/from-git", installed_dir=installed)

    assert (local.name, local.version) == ("local-one", "1.2.0")
    assert remote.resolved_ref == commit and remote.repo_path == "plugins/from-git"
    assert [i.name for i in list_installed_plugins(installed)] == ["from-git", "local-one"]
    manifest = json.loads((installed / ".installed.json").read_text())
    assert set(manifest["extensions"]) == {"from-git", "local-one"}

    assert disable_plugin("local-one", installed_dir=installed)
    assert [p.name for p in load_installed_plugins(installed)] == ["from-git"]
    assert enable_plugin("local-one", installed_dir=installed)
    with pytest.raises(ExtensionInstallError, match="installed already"):
        install_plugin(repo.url, repo_path="plugins/from-git", installed_dir=installed)

    (repo.path / "plugins" / "from-git" / ".plugin" / "plugin.json").write_text(
        json.dumps({"name": "from-git", "version": "2.0.0"})
    )
    newer = repo.commit("bump")
    updated = update_plugin("from-git", installed_dir=installed)
    assert updated is not None and (updated.version, updated.resolved_ref) == ("2.0.0", newer)

    assert uninstall_plugin("from-git", installed_dir=installed)
    assert [i.name for i in list_installed_plugins(installed)] == ["local-one"]


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("github:just-owner", "github:owner/repo"),
        ("nonsense", "Cannot tell"),
        ("/no/such", "not a folder"),
    ],
)
def test_a_source_that_cannot_be_fetched_says_why(source: str, reason: str, tmp_path: Path) -> None:
    with pytest.raises(PluginFetchError, match=reason):
        install_plugin(source, installed_dir=tmp_path / "installed")


def test_no_plugins_leave_the_agent_itself_and_no_hooks() -> None:
    agent = Agent(llm=TestLLM.from_messages([]))

    merged, hooks = load_plugins([], agent)

    assert merged is agent and hooks is None
