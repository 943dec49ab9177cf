"""The task index file: atomic saves under concurrency, tolerant loading of bad files."""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
from pathlib import Path

import pytest
from openhands.tools.task import TaskIndex, TaskRecord
from openhands.tools.task.index import INDEX_FILE


def record(task_id: str, status: str = "completed") -> TaskRecord:
    return TaskRecord(id=task_id, status=status, conversation_id=f"conv-{task_id}")  # type: ignore[arg-type]


def test_saved_records_load_back(tmp_path: Path) -> None:
    index = TaskIndex(tmp_path)
    index.save([record("a"), record("b", "error")])
    loaded = TaskIndex(tmp_path).load()
    assert sorted(loaded) == ["a", "b"]
    assert loaded["b"].status == "error"


def test_missing_index_loads_empty(tmp_path: Path) -> None:
    assert TaskIndex(tmp_path / "nowhere").load() == {}


def test_newer_record_wins_and_older_does_not_overwrite(tmp_path: Path) -> None:
    index = TaskIndex(tmp_path)
    old = record("a", "running")
    new = old.model_copy(
        update={"status": "completed", "updated_at": old.updated_at.replace(year=2100)}
    )
    index.save([new])
    index.save([old])
    assert index.load()["a"].status == "completed"


@pytest.mark.slow
def test_two_threads_saving_200_times_each_leave_a_valid_complete_index(tmp_path: Path) -> None:
    errors: list[BaseException] = []

    def writer(name: str) -> None:
        index = TaskIndex(tmp_path)  # one object per thread, like two managers
        try:
            for n in range(200):
                index.save([record(f"{name}-{n}")])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(name,)) for name in ("left", "right")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    data = json.loads((tmp_path / INDEX_FILE).read_text())
    assert len(data["tasks"]) == 400
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize(
    "content",
    [
        "",
        "{not json",
        "42",
        "null",
        '"a string"',
        "[]",
        '[{"id": "a"}]',
        '{"tasks": []}',
        '{"tasks": 5}',
        '{"version": 1}',
    ],
    ids=[
        "empty",
        "truncated",
        "number",
        "null",
        "string",
        "list",
        "list-of-records",
        "tasks-list",
        "tasks-scalar",
        "no-tasks",
    ],
)
def test_corrupt_or_wrongly_shaped_index_is_logged_and_ignored(
    tmp_path: Path, content: str, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / INDEX_FILE).write_text(content)
    with caplog.at_level(logging.WARNING, logger="openhands.tools.task.index"):
        assert TaskIndex(tmp_path).load() == {}
    assert "task index" in caplog.text


def test_bad_entries_are_skipped_and_good_ones_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    good = record("good").model_dump(mode="json")
    tasks = {
        "good": good,
        "scalar": 7,
        "missing-fields": {"id": "missing-fields"},
        "bad-status": {**record("bad-status").model_dump(mode="json"), "status": "sleeping"},
        "wrong-id": record("other").model_dump(mode="json"),
    }
    (tmp_path / INDEX_FILE).write_text(json.dumps({"version": 1, "tasks": tasks}))
    with caplog.at_level(logging.WARNING, logger="openhands.tools.task.index"):
        loaded = TaskIndex(tmp_path).load()
    assert list(loaded) == ["good"]
    assert caplog.text.count("Skipping") == 4


def test_saving_over_a_corrupt_index_replaces_it(tmp_path: Path) -> None:
    (tmp_path / INDEX_FILE).write_text("{broken")
    index = TaskIndex(tmp_path)
    index.save([record("fresh")])
    assert list(index.load()) == ["fresh"]


def test_the_index_and_its_folder_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        index = TaskIndex(tmp_path / "conversation")
        index.save([record("a")])
    finally:
        os.umask(old)

    created = list((tmp_path / "conversation").rglob("*"))
    modes = {str(path): oct(stat.S_IMODE(path.stat().st_mode)) for path in created}
    assert created and all(int(mode, 8) & 0o077 == 0 for mode in modes.values()), modes
