"""`CheckpointStore` on real files with real git: snapshots, what they leave out, diffs and
rewind, and that the workspace's own git repository is never touched."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from openhands.sdk.workspace.checkpoints import (
    CheckpointLimitError,
    CheckpointSettings,
    CheckpointStore,
    UnknownCheckpointError,
)


def _store(tmp_path: Path, **limits: int) -> tuple[CheckpointStore, Path]:
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    settings = CheckpointSettings.model_validate(limits)
    store = CheckpointStore(tmp_path / "conversation" / "checkpoints", workspace, settings)
    return store, workspace


def _files(workspace: Path) -> dict[str, str]:
    return {
        path.relative_to(workspace).as_posix(): path.read_text()
        for path in sorted(workspace.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(workspace).parts
    }


def _git(workspace: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="me", GIT_AUTHOR_EMAIL="me@x", GIT_COMMITTER_NAME="me")
    env.update(GIT_COMMITTER_EMAIL="me@x", GIT_CONFIG_GLOBAL=os.devnull)
    done = subprocess.run(
        ["git", *args], cwd=workspace, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_a_snapshot_lists_the_files_changed_since_the_previous_one(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    (workspace / "keep.txt").write_text("same\n")
    (workspace / "edit.txt").write_text("one\n")
    (workspace / "gone.txt").write_text("bye\n")
    first = store.snapshot("goal start", goal_round=0)
    (workspace / "edit.txt").write_text("two\n")
    (workspace / "gone.txt").unlink()
    (workspace / "src").mkdir()
    (workspace / "src" / "new.py").write_text("print(1)\n")

    second = store.snapshot("round 1", goal_round=1)

    assert first.changed == 3 and first.parent is None
    assert second.parent == first.id and second.goal_round == 1
    assert {(c.path, c.change) for c in second.changes} == {
        ("edit.txt", "modified"),
        ("gone.txt", "deleted"),
        ("src/new.py", "added"),
    }
    assert second.changed == 3


def test_a_snapshot_of_an_unchanged_workspace_is_a_new_checkpoint_with_no_changes(
    tmp_path: Path,
) -> None:
    store, workspace = _store(tmp_path)
    (workspace / "a.txt").write_text("a\n")
    first = store.snapshot("round 1")

    second = store.snapshot("round 2")

    assert second.id != first.id
    assert second.changed == 0 and second.changes == []
    assert store.diff(second.id).files == []


def test_ignored_files_are_left_out(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    (workspace / ".gitignore").write_text("*.log\nbuild/\n")
    (workspace / "app.log").write_text("noise\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "out.bin").write_text("artifact\n")
    (workspace / "main.py").write_text("pass\n")

    checkpoint = store.snapshot("start")

    assert sorted(c.path for c in checkpoint.changes) == [".gitignore", "main.py"]


def test_files_over_the_size_cap_are_skipped_and_named(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path, max_file_bytes=100)
    (workspace / "small.txt").write_text("x" * 100)
    (workspace / "large.bin").write_bytes(b"y" * 101)

    checkpoint = store.snapshot("start")

    assert [c.path for c in checkpoint.changes] == ["small.txt"]
    assert checkpoint.skipped == ["large.bin"]


def test_a_recorded_file_that_grows_over_the_cap_leaves_the_snapshot(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path, max_file_bytes=100)
    (workspace / "data.csv").write_text("a,b\n")
    first = store.snapshot("start")
    (workspace / "data.csv").write_text("a,b\n" * 100)

    second = store.snapshot("round 1")

    assert second.skipped == ["data.csv"]
    assert [(c.path, c.change) for c in second.changes] == [("data.csv", "deleted")]
    # A rewind to the start brings back the recorded small version.
    store.rewind(first.id)
    assert (workspace / "data.csv").read_text() == "a,b\n"


def test_a_snapshot_that_would_add_too_many_files_is_refused(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path, max_files=3)
    for index in range(4):
        (workspace / f"f{index}.txt").write_text(str(index))

    with pytest.raises(CheckpointLimitError, match="OH_CHECKPOINT_MAX_FILES"):
        store.snapshot("start")


def test_the_workspaces_own_git_repository_is_never_touched(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    _git(workspace, "init", "-q", "-b", "main")
    (workspace / "tracked.txt").write_text("v1\n")
    _git(workspace, "add", "tracked.txt")
    _git(workspace, "commit", "-q", "-m", "user commit")
    _git(workspace, "branch", "feature")
    (workspace / "staged.txt").write_text("staged\n")
    _git(workspace, "add", "staged.txt")
    index_before = (workspace / ".git" / "index").read_bytes()
    refs_before = _git(workspace, "for-each-ref")
    status_before = _git(workspace, "status", "--porcelain")

    start = store.snapshot("start")
    (workspace / "tracked.txt").write_text("v2\n")
    (workspace / "agent.txt").write_text("new\n")
    store.snapshot("round 1")
    store.rewind(start.id)

    assert (workspace / ".git" / "index").read_bytes() == index_before
    assert _git(workspace, "for-each-ref") == refs_before
    assert _git(workspace, "status", "--porcelain") == status_before
    assert _git(workspace, "log", "--format=%s") == "user commit\n"
    assert not any(c.path.startswith(".git/") for c in start.changes)


def test_a_folder_that_is_a_git_repository_of_its_own_is_left_out(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    vendored = workspace / "vendor" / "lib"
    vendored.mkdir(parents=True)
    _git(vendored, "init", "-q")
    (vendored / "lib.py").write_text("x = 1\n")
    (workspace / "app.py").write_text("pass\n")

    checkpoint = store.snapshot("start")

    assert [c.path for c in checkpoint.changes] == ["app.py"]


def test_the_conversations_folder_inside_the_workspace_is_left_out(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    conversations = workspace / ".openhands" / "conversations"
    folder = conversations / "abc"
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("{}\n")
    (workspace / "main.py").write_text("pass\n")
    store = CheckpointStore(folder / "checkpoints", workspace, exclude=(conversations,))

    checkpoint = store.snapshot("start")

    assert [c.path for c in checkpoint.changes] == ["main.py"]


def test_diff_between_two_rounds_counts_lines_and_gives_the_patch(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    (workspace / "app.py").write_text("a = 1\nb = 2\n")
    (workspace / "logo.bin").write_bytes(b"\x00\x01")
    first = store.snapshot("round 1")
    (workspace / "app.py").write_text("a = 1\nb = 3\nc = 4\n")
    (workspace / "logo.bin").write_bytes(b"\x00\x02")
    second = store.snapshot("round 2")

    diff = store.diff(second.id)

    assert diff.base == first.id and diff.target == second.id
    by_path = {f.path: f for f in diff.files}
    assert (by_path["app.py"].additions, by_path["app.py"].deletions) == (2, 1)
    assert by_path["logo.bin"].additions is None  # binary: no line counts
    assert "-b = 2\n+b = 3\n+c = 4\n" in diff.patch
    assert not diff.truncated


def test_diff_of_a_whole_goal_spans_several_checkpoints(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    (workspace / "a.txt").write_text("a\n")
    start = store.snapshot("goal start")
    (workspace / "b.txt").write_text("b\n")
    store.snapshot("round 1")
    (workspace / "c.txt").write_text("c\n")
    last = store.snapshot("round 2")

    diff = store.diff(last.id, start.id)

    assert [(f.path, f.change) for f in diff.files] == [("b.txt", "added"), ("c.txt", "added")]


def test_a_long_patch_is_cut_at_whole_lines(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path, max_diff_chars=500)
    first = store.snapshot("empty")
    (workspace / "long.txt").write_text("".join(f"line {i}\n" for i in range(1000)))
    second = store.snapshot("round 1")

    diff = store.diff(second.id, first.id)

    assert diff.truncated
    assert 0 < len(diff.patch) <= 500 and diff.patch.endswith("\n")
    assert diff.files[0].additions == 1000  # the file list stays complete


def test_rewind_restores_changed_files_and_removes_new_ones(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    (workspace / "keep.txt").write_text("original\n")
    (workspace / "gone.txt").write_text("was here\n")
    good = store.snapshot("round 1")
    (workspace / "keep.txt").write_text("broken\n")
    (workspace / "gone.txt").unlink()
    (workspace / "deep" / "er").mkdir(parents=True)
    (workspace / "deep" / "er" / "junk.txt").write_text("junk\n")
    store.snapshot("round 2")

    result = store.rewind(good.id)

    assert _files(workspace) == {"gone.txt": "was here\n", "keep.txt": "original\n"}
    assert not (workspace / "deep").exists()  # the folders it emptied go too
    assert sorted(result.restored) == ["gone.txt", "keep.txt"]
    assert result.deleted == ["deep/er/junk.txt"]
    assert store.diff(result.after, good.id).files == []


def test_a_rewind_can_be_undone_by_rewinding_to_its_before_snapshot(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    (workspace / "a.txt").write_text("1\n")
    good = store.snapshot("round 1")
    (workspace / "a.txt").write_text("2\n")
    (workspace / "b.txt").write_text("new\n")
    result = store.rewind(good.id)

    store.rewind(result.before)

    assert _files(workspace) == {"a.txt": "2\n", "b.txt": "new\n"}
    labels = [c.label for c in store.list()]
    assert labels[:3] == ["round 1", "before rewind to round 1", "rewound to round 1"]


def test_rewind_leaves_ignored_and_oversized_files_alone(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path, max_file_bytes=100)
    (workspace / ".gitignore").write_text("*.log\n")
    good = store.snapshot("start")
    (workspace / "run.log").write_text("log\n")
    (workspace / "big.bin").write_bytes(b"z" * 500)

    result = store.rewind(good.id)

    assert (workspace / "run.log").read_text() == "log\n"
    assert (workspace / "big.bin").stat().st_size == 500
    assert result.deleted == []


def test_rewind_keeps_file_modes_and_symlinks(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    script = workspace / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    (workspace / "link").symlink_to("run.sh")
    good = store.snapshot("start")
    script.chmod(0o644)
    (workspace / "link").unlink()

    store.rewind(good.id)

    assert script.stat().st_mode & stat.S_IXUSR
    assert os.readlink(workspace / "link") == "run.sh"


def test_a_file_can_replace_a_folder_of_the_same_name_on_rewind(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    (workspace / "thing").write_text("a file\n")
    good = store.snapshot("start")
    (workspace / "thing").unlink()
    (workspace / "thing").mkdir()
    (workspace / "thing" / "inside.txt").write_text("x\n")
    store.snapshot("round 1")

    store.rewind(good.id)

    assert (workspace / "thing").read_text() == "a file\n"


def test_odd_file_names_survive_a_rewind(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    names = ["with space.txt", "star*.txt", "-dash.txt", "ünïcode.txt", ":colon.txt"]
    for name in names:
        (workspace / name).write_text(name)
    good = store.snapshot("start")
    for name in names:
        (workspace / name).write_text("changed")

    result = store.rewind(good.id)

    assert sorted(result.restored) == sorted(names)
    assert all((workspace / name).read_text() == name for name in names)


def test_checkpoints_are_listed_oldest_first_and_found_by_a_prefix(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    assert store.list() == [] and store.latest() is None
    (workspace / "a").write_text("a")
    first = store.snapshot("goal start", goal_round=0)
    second = store.snapshot("round 1", goal_round=1)

    assert [(c.id, c.label, c.goal_round) for c in store.list()] == [
        (first.id, "goal start", 0),
        (second.id, "round 1", 1),
    ]
    assert store.get(second.id[:8]) == second
    assert store.latest() == second


@pytest.mark.parametrize("bad", ["HEAD", "--all", "abc", "zzzzzzzzz", "0" * 40])
def test_an_unknown_or_malformed_id_is_an_unknown_checkpoint(tmp_path: Path, bad: str) -> None:
    store, workspace = _store(tmp_path)
    (workspace / "a").write_text("a")
    store.snapshot("start")

    with pytest.raises(UnknownCheckpointError):
        store.rewind(bad)


def test_a_reopened_store_continues_after_a_lock_left_by_a_dead_process(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    (workspace / "a.txt").write_text("a\n")
    first = store.snapshot("start")
    (store.git_dir / "index.lock").write_text("")  # as a killed `git add` leaves it
    (workspace / "a.txt").write_text("b\n")

    reopened = CheckpointStore(store.git_dir, workspace, store.settings)
    second = reopened.snapshot("round 1")

    assert second.parent == first.id
    assert [c.path for c in second.changes] == ["a.txt"]


def test_the_shadow_repository_is_private_to_its_user(tmp_path: Path) -> None:
    store, _workspace = _store(tmp_path)
    store.snapshot("start")

    assert stat.S_IMODE(store.git_dir.stat().st_mode) == 0o700


def test_the_shadow_repository_is_configured_to_ignore_hooks_filters_and_signing(
    tmp_path: Path,
) -> None:
    store, workspace = _store(tmp_path)
    store.snapshot("start")

    def setting(key: str) -> str:
        return _git(workspace, "--git-dir", str(store.git_dir), "config", "--get", key).strip()

    assert setting("core.hooksPath") == os.devnull
    assert setting("core.excludesFile") == os.devnull
    assert setting("core.fsmonitor") == "false"
    assert setting("core.autocrlf") == "false"
    assert setting("commit.gpgSign") == "false"
    assert setting("gc.auto") == "0"
    assert setting("advice.addEmbeddedRepo") == "false"
    assert setting("core.bare") == "false"  # what `git init` wrote is still there


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OH_CHECKPOINTS", "off")
    monkeypatch.setenv("OH_CHECKPOINT_MAX_FILE_BYTES", "1234")
    settings = CheckpointSettings.from_env()
    assert not settings.enabled and settings.max_file_bytes == 1234

    monkeypatch.setenv("OH_CHECKPOINT_MAX_FILES", "lots")
    with pytest.raises(ValueError, match="OH_CHECKPOINT_MAX_FILES"):
        CheckpointSettings.from_env()


def test_caches_and_dependency_folders_are_left_out_by_default(tmp_path: Path) -> None:
    store, workspace = _store(tmp_path)
    for folder in ("__pycache__", "node_modules/pkg", ".venv/lib", ".pytest_cache"):
        (workspace / folder).mkdir(parents=True)
        (workspace / folder / "file").write_text("generated\n")
    (workspace / "module.pyc").write_bytes(b"\x00")
    (workspace / "app.py").write_text("pass\n")

    checkpoint = store.snapshot("start")

    assert [c.path for c in checkpoint.changes] == ["app.py"]


def test_the_exclude_setting_replaces_the_default_patterns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OH_CHECKPOINT_EXCLUDE", "*.log, build/")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "build").mkdir()
    (workspace / "build" / "out").write_text("x")
    (workspace / "run.log").write_text("x")
    (workspace / "__pycache__").mkdir()
    (workspace / "__pycache__" / "m.pyc").write_text("x")
    store = CheckpointStore(tmp_path / "checkpoints", workspace)

    checkpoint = store.snapshot("start")

    assert [c.path for c in checkpoint.changes] == ["__pycache__/m.pyc"]
