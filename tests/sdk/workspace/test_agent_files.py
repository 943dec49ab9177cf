"""`AgentFiles` gives exactly the sandbox's view to code that acts for the agent in this
process: hidden paths invisible (also through links and `..`), writes only in the workspace
and the writable folders, only regular files read, without blocking, within a limit."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.workspace import (
    claim_workspace,
    configure_sandbox,
    release_workspace,
    sandbox_status,
)
from openhands.sdk.workspace.agent_files import agent_files
from openhands.sdk.workspace.file_batch import apply_changes
from openhands.sdk.workspace.file_errors import (
    AgentFileError,
    FileTooLargeError,
    HiddenPathError,
    MissingPathError,
    NotARegularFileError,
    NotWritableError,
)
from openhands.sdk.workspace.sandbox import SandboxMode, SandboxPolicy

KEY = "the-sealing-key-0123456789"


@pytest.fixture
def base() -> Iterator[Path]:
    """A folder outside /tmp (the sandbox's /tmp is private: a path there is hidden anyway,
    and these tests are about the rules, not that), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="oh-agent-files-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def server(base: Path) -> dict[str, Path]:
    """A server's folder: its key, its conversations, two workspaces and an outside folder."""
    tmp_path = base
    root = tmp_path / "server"
    paths = {
        "root": root,
        "key": root / ".secret_key",
        "conversations": root / "conversations",
        "mine": root / "workspaces" / "mine",
        "other": root / "workspaces" / "other",
        "outside": tmp_path / "outside",
        "extra": tmp_path / "extra",
    }
    for name in ("conversations", "mine", "other", "outside", "extra"):
        paths[name].mkdir(parents=True)
    paths["key"].write_text(KEY)
    (paths["conversations"] / "events.jsonl").write_text(KEY)
    (paths["other"] / "notes.txt").write_text(KEY)
    (paths["mine"] / "mine.txt").write_text("my own file\n")
    (paths["outside"] / "readme.txt").write_text("outside\n")
    return paths


def _policy(server: dict[str, Path], mode: SandboxMode, **extra: object) -> Iterator[None]:
    hidden = (str(server["key"]), str(server["conversations"]))
    configure_sandbox(SandboxPolicy(mode=mode, hidden=hidden, **extra))  # type: ignore[arg-type]
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
    yield from _policy(server, "auto", writable=(str(server["extra"]),))


@pytest.fixture
def unsandboxed(server: dict[str, Path]) -> Iterator[None]:
    yield from _policy(server, "off")


@pytest.mark.usefixtures("sandboxed")
@pytest.mark.parametrize(
    "how", ["direct", "link", "link-to-parent", "dotdot", "relative-link-chain"]
)
def test_hidden_files_stay_hidden_however_they_are_named(server: dict[str, Path], how: str) -> None:
    mine = server["mine"]
    (mine / "key-link").symlink_to(server["key"])
    (mine / "up").symlink_to("../..")
    (mine / "a").symlink_to("b")
    (mine / "b").symlink_to("up/.secret_key")
    path = {
        "direct": str(server["key"]),
        "link": "key-link",
        "link-to-parent": "up/.secret_key",
        "dotdot": "../../.secret_key",
        "relative-link-chain": "a",
    }[how]
    files = agent_files(mine)
    with pytest.raises(HiddenPathError, match="hidden from the agent"):
        files.read_bytes(path, limit=1000)
    with pytest.raises(HiddenPathError):
        files.write_text(path, "planted")
    assert server["key"].read_text() == KEY


@pytest.mark.usefixtures("sandboxed")
def test_other_workspaces_and_the_conversations_are_left_out_of_listings(
    server: dict[str, Path],
) -> None:
    files = agent_files(server["mine"])
    assert [entry.name for entry in files.list_dir(server["root"])] == ["workspaces"]
    assert [entry.name for entry in files.list_dir(server["root"] / "workspaces")] == ["mine"]
    walked = [folder.path for folder in files.walk(server["root"])]
    assert walked == [
        str(server["root"]),
        str(server["root"] / "workspaces"),
        str(server["mine"]),
    ]


@pytest.mark.usefixtures("sandboxed")
def test_a_workspace_inside_a_hidden_folder_is_reached_through_it(
    server: dict[str, Path],
) -> None:
    inside = server["conversations"] / "project"
    inside.mkdir()
    (inside / "code.py").write_text("print(1)\n")
    claim_workspace(inside)
    try:
        files = agent_files(inside)
        assert files.read_text("code.py", limit=100) == "print(1)\n"
        assert [e.name for e in files.list_dir(server["conversations"])] == ["project"]
        with pytest.raises(HiddenPathError):
            files.read_text(server["conversations"] / "events.jsonl", limit=100)
        with pytest.raises(HiddenPathError):
            files.read_text("../events.jsonl", limit=100)
    finally:
        release_workspace(inside)


def test_tmp_is_private_when_the_sandbox_runs(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "elsewhere.txt").write_text("the server's temp file")
    configure_sandbox(SandboxPolicy(mode="auto"))
    try:
        files = agent_files(workspace)
        files.write_text("inside.txt", "a workspace under /tmp stays the agent's")
        if sandbox_status("bwrap").active:
            with pytest.raises(HiddenPathError):
                files.read_text(tmp_path / "elsewhere.txt", limit=100)
        else:  # no sandbox runs: /tmp is the agent's too
            assert files.read_text(tmp_path / "elsewhere.txt", limit=100)
    finally:
        configure_sandbox(None)


@pytest.mark.usefixtures("sandboxed")
def test_proc_and_dev_are_never_the_agents(server: dict[str, Path]) -> None:
    files = agent_files(server["mine"])
    (server["mine"] / "environ").symlink_to("/proc/self/environ")
    for path in ("/proc/self/environ", "environ", "/dev/zero"):
        with pytest.raises(HiddenPathError):
            files.read_bytes(path, limit=1000)


@pytest.mark.usefixtures("sandboxed")
@pytest.mark.parametrize("where", ["outside", "link-out", "system"])
def test_writes_land_only_in_the_workspace_and_the_writable_folders(
    server: dict[str, Path], where: str
) -> None:
    mine = server["mine"]
    (mine / "out").symlink_to(server["outside"])
    path = {
        "outside": str(server["outside"] / "planted.txt"),
        "link-out": "out/planted.txt",
        "system": "/usr/planted.txt",
    }[where]
    files = agent_files(mine)
    with pytest.raises(NotWritableError, match="outside the folders the agent may write"):
        files.write_text(path, "planted", parents=True)
    with pytest.raises(NotWritableError):
        files.remove_file(server["outside"] / "readme.txt")
    assert not (server["outside"] / "planted.txt").exists()
    assert (server["outside"] / "readme.txt").exists()
    files.write_text(server["extra"] / "ok.txt", "fine")
    files.write_text("sub/dir/new.txt", "fine", parents=True)
    assert (mine / "sub" / "dir" / "new.txt").read_text() == "fine"


@pytest.mark.usefixtures("unsandboxed")
def test_with_the_sandbox_off_reads_go_anywhere_but_writes_stay_confined(
    server: dict[str, Path],
) -> None:
    files = agent_files(server["mine"])
    assert files.read_text(server["key"], limit=100) == KEY
    with pytest.raises(NotWritableError):
        files.write_text(server["outside"] / "planted.txt", "x")


def test_confinement_of_writes_can_be_switched_off_with_the_sandbox(
    server: dict[str, Path],
) -> None:
    for _ in _policy(server, "off", confine_writes=False):
        agent_files(server["mine"]).write_text(server["outside"] / "planted.txt", "x")
    assert (server["outside"] / "planted.txt").read_text() == "x"
    for _ in _policy(server, "auto", confine_writes=False):
        with pytest.raises(NotWritableError):
            agent_files(server["mine"]).write_text(server["outside"] / "again.txt", "x")


@pytest.mark.usefixtures("sandboxed")
def test_only_regular_files_are_read_and_a_fifo_never_blocks(server: dict[str, Path]) -> None:
    mine = server["mine"]
    os.mkfifo(mine / "pipe")
    files = agent_files(mine)
    done = threading.Event()

    def read() -> None:
        with pytest.raises(NotARegularFileError):
            files.read_bytes("pipe", limit=100)
        done.set()

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert done.is_set(), "reading a FIFO blocked"
    with pytest.raises(NotARegularFileError):
        files.read_bytes(".", limit=100)


@pytest.mark.usefixtures("sandboxed")
def test_a_read_stops_at_its_limit(server: dict[str, Path]) -> None:
    (server["mine"] / "big.bin").write_bytes(b"x" * 5000)
    files = agent_files(server["mine"])
    assert len(files.read_bytes("big.bin", limit=5000)) == 5000
    with pytest.raises(FileTooLargeError):
        files.read_bytes("big.bin", limit=4999)


@pytest.mark.usefixtures("sandboxed")
def test_a_replaced_file_keeps_its_mode_and_a_create_never_overwrites(
    server: dict[str, Path],
) -> None:
    script = server["mine"] / "run.sh"
    script.write_text("echo 1\n")
    script.chmod(0o750)
    files = agent_files(server["mine"])
    files.write_text("run.sh", "echo 2\n")
    assert script.read_text() == "echo 2\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    with pytest.raises(FileExistsError):
        files.write_text("run.sh", "echo 3\n", exclusive=True)
    assert script.read_text() == "echo 2\n"
    assert not [p for p in server["mine"].iterdir() if p.name.endswith(".tmp")]


@pytest.mark.usefixtures("sandboxed")
def test_a_floor_keeps_every_path_and_link_inside_it(server: dict[str, Path]) -> None:
    mine = server["mine"]
    (mine / "skills").mkdir()
    (mine / "skills" / "SKILL.md").write_text("# a skill\n")
    (mine / "alias.md").symlink_to("skills/SKILL.md")
    (mine / "absolute.md").symlink_to(mine / "mine.txt")
    (mine / "escape.md").symlink_to(server["outside"] / "readme.txt")
    files = agent_files(mine, floor=mine)
    assert files.read_text("alias.md", limit=100) == "# a skill\n"
    for path in ("absolute.md", "escape.md", "../../workspaces/mine/mine.txt"):
        with pytest.raises(AgentFileError):
            files.read_text(path, limit=100)


@pytest.mark.usefixtures("sandboxed")
def test_a_batch_lands_whole_or_not_at_all(server: dict[str, Path]) -> None:
    mine = server["mine"]
    (mine / "a.txt").write_text("a\n")
    files = agent_files(mine)
    refused = [
        (mine / "a.txt", b"A\n"),
        (mine / "new.txt", b"new\n"),
        (server["outside"] / "readme.txt", b"planted\n"),
    ]
    with pytest.raises(NotWritableError):
        apply_changes(files, refused)
    assert (mine / "a.txt").read_text() == "a\n"
    assert not (mine / "new.txt").exists()
    assert (server["outside"] / "readme.txt").read_text() == "outside\n"
    apply_changes(files, [(mine / "a.txt", None), (mine / "d" / "new.txt", b"new\n")])
    assert not (mine / "a.txt").exists()
    assert (mine / "d" / "new.txt").read_text() == "new\n"
    assert sorted(p.name for p in mine.iterdir()) == ["d", "mine.txt"]


@pytest.mark.usefixtures("sandboxed")
def test_missing_paths_and_removals(server: dict[str, Path]) -> None:
    mine = server["mine"]
    files = agent_files(mine)
    assert not files.exists("nothing/here.txt")
    with pytest.raises(MissingPathError):
        files.read_bytes("nothing/here.txt", limit=10)
    (mine / "link").symlink_to(server["outside"] / "readme.txt")
    files.remove_file("link")  # the link goes, never what it names
    assert not (mine / "link").is_symlink()
    assert (server["outside"] / "readme.txt").exists()
    files.make_dirs("x/y")
    files.remove_dir("x/y")
    assert (mine / "x").is_dir() and not (mine / "x" / "y").exists()
