"""The agent's tools that run in the server's process (file editor, grep, glob, the
model-specific file tools) see what its sandboxed terminal sees: not the server's key file
or conversations folder, not other conversations' workspaces, also inside the workspace or
through a symlink. Nothing is hidden with the sandbox off."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.workspace import claim_workspace, configure_sandbox, release_workspace
from openhands.sdk.workspace.sandbox import SandboxMode, SandboxPolicy
from openhands.tools.file_editor import EditorError, FileEditor
from openhands.tools.glob.definition import GlobAction, GlobExecutor
from openhands.tools.grep.definition import GrepAction, GrepExecutor
from openhands.tools.text_files import WorkspacePathError, WorkspaceText

SECRET = "sealing-key-0123456789"


@pytest.fixture
def server(tmp_path: Path) -> dict[str, Path]:
    """A server's folder: key file, conversations, two workspaces (a secret linked from one)."""
    root = tmp_path / "server"
    paths = {
        "root": root,
        "key": root / ".secret_key",
        "conversations": root / "conversations",
        "mine": root / "workspaces" / "mine",
        "other": root / "workspaces" / "other",
    }
    for name in ("conversations", "mine", "other"):
        paths[name].mkdir(parents=True)
    paths["key"].write_text(SECRET)
    (paths["conversations"] / "events.jsonl").write_text(f'{{"api_key": "{SECRET}"}}\n')
    (paths["other"] / "notes.txt").write_text(f"other's {SECRET}")
    (paths["mine"] / "mine.txt").write_text("my own file")
    (paths["mine"] / "link-to-key").symlink_to(paths["key"])
    return paths


def _sandbox(server: dict[str, Path], mode: SandboxMode) -> Iterator[None]:
    hidden = (str(server["key"]), str(server["conversations"]))
    configure_sandbox(SandboxPolicy(mode=mode, hidden=hidden))
    claim_workspace(server["mine"])
    claim_workspace(server["other"])
    try:
        yield
    finally:
        release_workspace(server["other"])
        release_workspace(server["mine"])
        configure_sandbox(None)


@pytest.fixture
def sandboxed(server: dict[str, Path]) -> Iterator[None]:
    """The server's policy, mode auto: hiding does not need bubblewrap to be installed."""
    yield from _sandbox(server, "auto")


@pytest.mark.usefixtures("sandboxed")
@pytest.mark.parametrize("target", ["key", "conversations", "other", "link"])
def test_the_file_editor_refuses_what_the_sandbox_hides(
    server: dict[str, Path], target: str
) -> None:
    editor = FileEditor(str(server["mine"]))
    path = str(server["mine"] / "link-to-key") if target == "link" else str(server[target])
    with pytest.raises(EditorError, match="hidden from the agent"):
        editor.view(path)
    with pytest.raises(EditorError, match="hidden from the agent"):
        editor.create(str(Path(path) / "planted.txt"), "x")
    assert "my own file" in editor.view("mine.txt")


@pytest.mark.usefixtures("sandboxed")
def test_a_listing_of_the_server_folder_shows_nothing_hidden(server: dict[str, Path]) -> None:
    editor = FileEditor(str(server["mine"]))
    top = editor.view(str(server["root"]))
    assert str(server["mine"]) in top
    assert "conversations" not in top and str(server["other"]) not in top
    below = editor.view(str(server["root"] / "workspaces"))
    assert "mine.txt" in below and "notes.txt" not in below


@pytest.mark.usefixtures("sandboxed")
def test_grep_and_glob_never_look_into_hidden_folders(server: dict[str, Path]) -> None:
    mine = str(server["mine"])
    grep = GrepExecutor(mine)(GrepAction(pattern=SECRET[:12], path=str(server["root"])))
    assert not grep.is_error and grep.matches == [], grep.text
    found = GlobExecutor(mine)(GlobAction(pattern="**/*", path=str(server["root"])))
    assert found.files == [str(server["mine"] / "mine.txt")], found.files
    refused = GrepExecutor(mine)(GrepAction(pattern=".", path=str(server["conversations"])))
    assert refused.is_error and "hidden from the agent" in refused.text


@pytest.mark.usefixtures("sandboxed")
def test_a_server_folder_inside_the_workspace_stays_hidden_from_the_file_tools(
    server: dict[str, Path],
) -> None:
    # The workspace is the server's whole folder: the key inside it is still refused.
    with pytest.raises(WorkspacePathError, match="hidden from the agent"):
        WorkspaceText(server["root"]).resolve(".secret_key")
    (server["root"] / "readme.txt").write_text("the workspace's own file")
    assert WorkspaceText(server["root"]).resolve("readme.txt").is_file()


def test_with_the_sandbox_off_nothing_is_hidden(server: dict[str, Path]) -> None:
    for _ in _sandbox(server, "off"):
        editor = FileEditor(str(server["mine"]))
        assert SECRET in editor.view(str(server["key"]))
        grep = GrepExecutor(str(server["mine"]))(
            GrepAction(pattern=SECRET[:12], path=str(server["root"]))
        )
        # The log, the other's notes and the link (the key itself, `.secret_key`, is a dot-file:
        # grep skips hidden names by its own rule, as the reference's does).
        assert len(grep.matches) == 3
