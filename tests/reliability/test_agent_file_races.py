"""The agent's file tools run in the server's process; a prompt-injected agent races them.

A background job of the agent (here a process of its own, as its terminal's job would be)
swaps a symlink as fast as it can between a folder of the workspace and the server's folder.
The tools checked a name and opened it again afterwards: one view in about 80 printed the
real key, and a rewind deleted files outside the workspace. Each race is run many times,
bounded in time; with every file operation walked by descriptor, none may land.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.workspace import claim_workspace, configure_sandbox, release_workspace
from openhands.sdk.workspace.sandbox import SandboxMode, SandboxPolicy
from openhands.tools.file_editor import FileEditor
from openhands.tools.grep.definition import GrepAction, GrepExecutor

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

KEY = "REAL-sealing-key-4f1c9e"
DECOY = "decoy-key-in-the-workspace"
TRIES = 600
"""Views raced: today's rate was 1 in 80, so 600 tries miss it with odds below 1 in 1,000."""

FLIPPER = textwrap.dedent(
    """
    import os, sys
    link, first, second = sys.argv[1:4]
    temp = link + ".next"
    print("flipping", flush=True)
    while True:
        for target in (first, second):
            try:
                os.symlink(target, temp)
                os.replace(temp, link)
            except FileExistsError:
                os.unlink(temp)
    """
)


@pytest.fixture
def server() -> Iterator[dict[str, Path]]:
    """A server folder outside /tmp with its key, and a workspace in it."""
    root = Path(tempfile.mkdtemp(prefix="oh-race-", dir="/var/tmp"))
    paths = {"root": root, "key": root / ".secret_key", "ws": root / "workspaces" / "agent"}
    paths["ws"].mkdir(parents=True)
    paths["key"].write_text(KEY)
    (paths["ws"] / "real").mkdir()
    (paths["ws"] / "real" / ".secret_key").write_text(DECOY)
    yield paths
    shutil.rmtree(root, ignore_errors=True)


def _policy(server: dict[str, Path], mode: SandboxMode) -> Iterator[None]:
    configure_sandbox(SandboxPolicy(mode=mode, hidden=(str(server["key"]),)))
    claim_workspace(server["ws"])
    try:
        yield
    finally:
        release_workspace(server["ws"])
        configure_sandbox(None)


@pytest.fixture(params=["auto"])
def policy(server: dict[str, Path], request: pytest.FixtureRequest) -> Iterator[None]:
    yield from _policy(server, request.param)


@pytest.fixture
def flipper(server: dict[str, Path]) -> Iterator[subprocess.Popen[str]]:
    """`ws/flip` swapped for ever between `real` (in the workspace) and the server folder."""
    process = subprocess.Popen(
        [sys.executable, "-c", FLIPPER, str(server["ws"] / "flip"), "real", str(server["root"])],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "flipping"  # the race is on
    yield process
    process.kill()
    process.wait()
    process.stdout.close()


@pytest.mark.usefixtures("policy")
def test_a_swapped_symlink_never_shows_the_key_to_the_file_editor(
    server: dict[str, Path], flipper: subprocess.Popen[str]
) -> None:
    editor = FileEditor(str(server["ws"]))
    decoys = 0
    for _ in range(TRIES):
        try:
            text = editor.view("flip/.secret_key")
        except Exception as exc:  # refused: hidden, or swapped while opened
            text = str(exc)
        assert KEY not in text
        decoys += DECOY in text
    assert flipper.poll() is None
    assert decoys > 0, "the race never reached the workspace side: nothing was tested"


@pytest.mark.usefixtures("policy")
def test_a_swapped_symlink_never_lets_grep_read_the_key(
    server: dict[str, Path], flipper: subprocess.Popen[str]
) -> None:
    grep = GrepExecutor(str(server["ws"]))
    found = 0
    for _ in range(TRIES // 3):
        result = grep(GrepAction(pattern=KEY[:12], path="flip"))
        assert not result.matches, result.text
        found += not result.is_error
    assert found > 0, "grep never searched the workspace side"


@pytest.mark.usefixtures("policy")
def test_a_swapped_symlink_never_lets_the_editor_write_outside(
    server: dict[str, Path], flipper: subprocess.Popen[str]
) -> None:
    editor = FileEditor(str(server["ws"]))
    created = 0
    for index in range(TRIES // 3):
        try:
            editor.create(f"flip/planted-{index}.txt", "planted")
            created += 1
        except Exception:
            continue
    assert not list(server["root"].glob("planted-*")), "a file landed in the server folder"
    assert created > 0, "no create reached the workspace side"


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_the_file_editor_writes_only_in_the_workspace(
    server: dict[str, Path], mode: SandboxMode
) -> None:
    """create / str_replace / insert once wrote anywhere the server's user can (a .pth file
    in the server's venv runs at its next start, with every key)."""
    outside = server["root"] / "site-packages"
    outside.mkdir()
    (outside / "existing.py").write_text("x = 1\n")
    (server["ws"] / "venv").symlink_to(outside)
    for _ in _policy(server, mode):
        editor = FileEditor(str(server["ws"]))
        for path in (str(outside / "evil.pth"), "venv/evil.pth", "../../site-packages/e.pth"):
            with pytest.raises(Exception, match="outside the folders the agent may write"):
                editor.create(path, "import os; os.system('id')\n")
        with pytest.raises(Exception, match="outside the folders the agent may write"):
            editor.str_replace(str(outside / "existing.py"), "x = 1", "x = 2")
        with pytest.raises(Exception, match="outside the folders the agent may write"):
            editor.insert("venv/existing.py", 0, "import evil\n")
        assert editor.create("inside.txt", "fine").startswith("File created")
    assert sorted(p.name for p in outside.iterdir()) == ["existing.py"]
    assert (outside / "existing.py").read_text() == "x = 1\n"


SWAPPER = textwrap.dedent(
    """
    import os, random, sys, time
    folder, outside = sys.argv[1:3]
    aside = folder + ".aside"
    print("swapping", flush=True)
    def swap() -> None:
        os.makedirs(folder, exist_ok=True)
        victim = os.path.join(folder, "victim.txt")
        if not os.path.exists(victim):
            with open(victim, "w") as handle:
                handle.write("the agent's file")
        time.sleep(random.uniform(0, 0.004))
        os.rename(folder, aside)
        os.symlink(outside, folder)
        time.sleep(random.uniform(0, 0.004))
        os.unlink(folder)
        os.rename(aside, folder)

    while True:  # each state held a few milliseconds, as a shell loop of mv and ln does
        try:
            swap()
        except OSError:  # the rewind removed or restored something meanwhile: tidy up
            for path in (folder, aside):
                if os.path.islink(path):
                    os.unlink(path)
    """
)
REWINDS = 40
"""Rewinds raced: today 2 in 15 deleted outside, so 40 miss it with odds below 1 in 300."""


def test_a_rewind_never_deletes_outside_the_workspace(server: dict[str, Path]) -> None:
    from openhands.sdk.workspace.checkpoints import CheckpointError, CheckpointStore

    outside = server["root"] / "outside"
    outside.mkdir()
    sentinel = outside / "victim.txt"
    sentinel.write_text("not the agent's")
    store = CheckpointStore(server["root"] / "shadow", server["ws"])
    empty = store.snapshot("before anything")
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(server["ws"] / "d"), str(outside)],
        stdout=subprocess.PIPE,
        text=True,
    )
    deleted = refused = done = 0
    try:
        assert swapper.stdout is not None
        assert swapper.stdout.readline().strip() == "swapping"
        for _ in _policy(server, "auto"):
            for _ in range(REWINDS):
                try:
                    store.rewind(empty.id)
                    done += 1
                except CheckpointError:
                    refused += 1  # the workspace changed under the rewind: said, not done
                if not sentinel.exists():
                    deleted += 1
                    sentinel.write_text("not the agent's")
    finally:
        swapper.kill()
        swapper.wait()
        assert swapper.stdout is not None
        swapper.stdout.close()
    assert deleted == 0, f"{deleted} of {REWINDS} rewinds deleted a file outside the workspace"
    assert done + refused == REWINDS
