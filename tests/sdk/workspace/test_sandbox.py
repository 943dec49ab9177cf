"""The bubblewrap sandbox as the SDK uses it: what a command sees, writes and reaches.

Real bwrap runs (skipped where it cannot run). Each test builds its own layout in tmp_path
and hides or claims folders there; the process-wide claims are undone afterwards.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest
from openhands.sdk.workspace import (
    LocalWorkspace,
    SandboxPolicy,
    SandboxUnavailableError,
    claim_workspace,
    configure_sandbox,
    release_workspace,
    run_shell,
    sandbox_command,
    sandbox_status,
)
from openhands.sdk.workspace import sandbox as sandbox_module
from openhands.sdk.workspace.sandbox import hide_path, unhide_path
from sandbox_support import needs_bwrap


@pytest.fixture
def layout(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """A workspace, another conversation's workspace and a secret folder, under tmp_path."""
    paths = {
        "work": tmp_path / "work",
        "other": tmp_path / "other",
        "secret": tmp_path / "secret",
    }
    for path in paths.values():
        path.mkdir()
    (paths["other"] / "theirs.txt").write_text("other workspace")
    (paths["secret"] / "key").write_text("the key")
    claim_workspace(paths["other"])
    hide_path(paths["secret"])
    yield paths
    release_workspace(paths["other"])
    unhide_path(paths["secret"])


def _sh(workspace: Path, command: str) -> str:
    result = LocalWorkspace(working_dir=workspace, sandbox="bwrap").execute_command(command)
    return result.output


@needs_bwrap
def test_a_sandboxed_command_writes_its_workspace_and_nothing_else(
    layout: dict[str, Path],
) -> None:
    work = layout["work"]
    output = _sh(work, "echo mine > mine.txt; touch /usr/oh-test 2>&1; echo done")

    assert (work / "mine.txt").read_text() == "mine\n"
    assert "Read-only file system" in output and "done" in output
    assert not Path("/usr/oh-test").exists()


@needs_bwrap
def test_other_workspaces_hidden_paths_and_tmp_are_invisible(
    layout: dict[str, Path], tmp_path: Path
) -> None:
    outside = Path("/tmp") / f"oh-sandbox-outside-{os.getpid()}"
    outside.write_text("host tmp")
    try:
        output = _sh(
            layout["work"],
            f"cat {layout['other']}/theirs.txt {layout['secret']}/key {outside} 2>&1; "
            f"ls -A {layout['secret']} | wc -l",
        )
    finally:
        outside.unlink()

    assert "other workspace" not in output and "the key" not in output
    assert "host tmp" not in output
    assert output.strip().endswith("0")


@needs_bwrap
def test_a_workspace_inside_a_hidden_folder_is_bound_back_and_a_secret_inside_stays_hidden(
    tmp_path: Path,
) -> None:
    parent = tmp_path / "workspaces"
    work = parent / "mine"
    secret = work / ".conversations"
    secret.mkdir(parents=True)
    (secret / "log").write_text("hidden log")
    (parent / "neighbour.txt").write_text("neighbour")
    claim_workspace(parent)
    hide_path(secret)
    try:
        output = _sh(work, "ls -A .conversations | wc -l; cat ../neighbour.txt 2>&1; touch ok")
    finally:
        release_workspace(parent)
        unhide_path(secret)

    assert output.splitlines()[0].strip() == "0"
    assert "neighbour" not in output.replace("neighbour.txt", "")
    assert (work / "ok").exists()


@needs_bwrap
def test_a_claim_grants_its_own_workspace_paths_inside_another_hidden_workspace(
    layout: dict[str, Path],
) -> None:
    # As a git worktree's repository records: readable, one part writable, only for the
    # workspace whose claim grants them, and only while it is claimed.
    records = layout["other"] / "records"
    (records / "open").mkdir(parents=True)
    (records / "closed.txt").write_text("closed")
    work = layout["work"]
    command = (
        f"cat {records}/closed.txt; echo x > {records}/open/new.txt && echo WROTE; "
        f"echo y > {records}/closed.txt 2>/dev/null || echo REFUSED; "
        f"cat {layout['other']}/theirs.txt 2>&1"
    )
    claim_workspace(work, readable=[records], writable=[records / "open"])
    try:
        granted = _sh(work, command)
        elsewhere = _sh(layout["secret"], f"cat {records}/closed.txt 2>&1")
    finally:
        release_workspace(work)
    released = _sh(work, f"cat {records}/closed.txt 2>&1")

    assert "closed" in granted and "WROTE" in granted and "REFUSED" in granted
    assert (records / "open" / "new.txt").read_text() == "x\n"
    assert (records / "closed.txt").read_text() == "closed"
    assert "other workspace" not in granted  # the rest of that workspace stays hidden
    assert "closed" not in elsewhere.replace("closed.txt", "")
    assert "closed" not in released.replace("closed.txt", "")


@needs_bwrap
@pytest.mark.slow
def test_a_timed_out_sandboxed_command_dies_with_everything_it_started(tmp_path: Path) -> None:
    marker = f"oh-sandbox-sleeper-{os.getpid()}"
    result = run_shell(
        f"bash -c 'exec -a {marker} sleep 300' & sleep 300",
        tmp_path,
        timeout=1,
        sandbox="bwrap",
    )

    assert result.timed_out and result.exit_code == 124
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        left = [
            p
            for p in psutil.process_iter(["cmdline"])
            if marker in " ".join(p.info["cmdline"] or [])
        ]
        if not left:
            break
        time.sleep(0.05)
    assert not left


def test_bwrap_mode_without_bubblewrap_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on it
    sandbox_module._reset_for_tests()
    try:
        with pytest.raises(SandboxUnavailableError, match="bubblewrap"):
            sandbox_command(["true"], workspace=tmp_path, mode="bwrap")
        result = run_shell("echo ran", tmp_path, timeout=5, sandbox="bwrap")
    finally:
        monkeypatch.undo()
        sandbox_module._reset_for_tests()

    assert result.exit_code == 127 and "bubblewrap" in result.output


def test_auto_mode_without_bubblewrap_runs_unsandboxed_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    sandbox_module._reset_for_tests()
    try:
        first = sandbox_command(["true"], workspace=tmp_path, mode="auto")
        second = sandbox_command(["true"], workspace=tmp_path, mode="auto")
        status = sandbox_status("auto")
    finally:
        monkeypatch.undo()
        sandbox_module._reset_for_tests()

    assert first == second == ["true"]
    assert len([r for r in caplog.records if "WITHOUT a sandbox" in r.getMessage()]) == 1
    assert not status.active and status.warning and "WITHOUT a sandbox" in status.warning


def test_a_configured_policy_wins_over_the_workspace_choice(tmp_path: Path) -> None:
    configure_sandbox(SandboxPolicy(mode="off"))
    try:
        argv = sandbox_command(["true"], workspace=tmp_path, mode="bwrap")
    finally:
        configure_sandbox(None)

    assert argv == ["true"]


def test_the_environment_describes_the_default_policy(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    policy = SandboxPolicy.from_env(
        {"OH_SANDBOX": "BWRAP", "OH_SANDBOX_NETWORK": "false", "OH_SANDBOX_WRITABLE": f"{a}, {b}"}
    )

    assert policy == SandboxPolicy(mode="bwrap", network=False, writable=(str(a), str(b)))
    assert SandboxPolicy.from_env({}).mode == "off"
    with pytest.raises(ValueError, match="OH_SANDBOX"):
        SandboxPolicy.from_env({"OH_SANDBOX": "docker"})


@needs_bwrap
@pytest.mark.slow
def test_many_sandboxed_commands_at_once_all_get_their_network(tmp_path: Path) -> None:
    # Two races found this way: bwrap's loopback set-up against slirp4netns's, and bwrap's
    # info pipe closed before bwrap had written all of it (the sandbox then hung).
    configure_sandbox(SandboxPolicy(mode="bwrap", network=True))
    try:
        with ThreadPoolExecutor(8) as pool:
            results = list(
                pool.map(
                    lambda _: run_shell("grep -c tap0 /proc/net/route", tmp_path, timeout=60),
                    range(48),
                )
            )
    finally:
        configure_sandbox(None)

    assert [(r.exit_code, r.output.strip()) for r in results] == [(0, "2")] * 48


def test_claiming_many_workspaces_at_once_hides_what_claiming_each_would(tmp_path: Path) -> None:
    """`claim_workspaces` resolves paths without a full realpath each: a symlinked folder, a
    symlinked parent, a missing folder and a path with `..` must come out as realpath's."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a").mkdir()
    (tmp_path / "target").mkdir()
    (tmp_path / "real" / "link").symlink_to(tmp_path / "target")
    (tmp_path / "parent-link").symlink_to(tmp_path / "real")
    paths = [
        str(tmp_path / "real" / "a"),
        str(tmp_path / "real" / "link"),
        str(tmp_path / "parent-link" / "a"),
        str(tmp_path / "real" / "missing"),
        str(tmp_path / "real" / ".." / "target"),
    ]

    def hidden() -> set[str]:
        """The claimed folders under tmp_path: what every other sandbox hides."""
        claimed = sandbox_module._workspaces  # the claims the mount plans read
        return {path for path in claimed if path.startswith(str(tmp_path))}

    for path in paths:
        claim_workspace(path)
    one_by_one = hidden()
    for path in paths:
        release_workspace(path)
    sandbox_module.claim_workspaces(paths)
    at_once = hidden()
    for path in paths:
        release_workspace(path)

    assert at_once == one_by_one == {os.path.realpath(p) for p in paths}
    assert hidden() == set()
