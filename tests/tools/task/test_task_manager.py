"""TaskManager: running sub-agents, results, errors, resume, and where things are stored."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from openhands.sdk import Message
from openhands.sdk.conversation.event_log import EVENTS_FILE
from openhands.sdk.testing import TestLLM
from openhands.tools.task import TaskError, TaskManager, TaskRecord, UnknownTaskError
from openhands.tools.task.index import INDEX_FILE

Factory = Callable[..., Message]


def test_result_is_the_finish_message(workspace: Path, finish: Factory) -> None:
    manager = TaskManager(str(workspace))
    record = manager.start("say done", llm=TestLLM.from_messages([finish("all done")]))
    assert record.status == "completed"
    assert record.result == "all done"
    manager.close()


def test_result_is_the_plain_reply_when_the_agent_does_not_call_finish(
    workspace: Path, reply: Factory
) -> None:
    manager = TaskManager(str(workspace), llm=TestLLM.from_messages([reply("just text")]))
    assert manager.start("answer").result == "just text"
    manager.close()


def test_sub_agent_uses_its_tools_in_the_working_dir(
    workspace: Path, tool_call: Factory, finish: Factory
) -> None:
    llm = TestLLM.from_messages(
        [
            tool_call("file_editor", command="create", path="made.txt", file_text="by sub-agent\n"),
            tool_call("terminal", command="wc -l made.txt"),
            finish("made it"),
        ]
    )
    manager = TaskManager(str(workspace), llm=llm)
    record = manager.start("make a file")
    manager.close()
    assert record.status == "completed"
    assert (workspace / "made.txt").read_text() == "by sub-agent\n"


def test_failed_run_gives_an_error_task_with_the_reason(workspace: Path) -> None:
    manager = TaskManager(str(workspace), llm=TestLLM.from_messages([]))
    record = manager.start("anything")
    manager.close()
    assert record.status == "error"
    assert record.error is not None and "ran out of scripted replies" in record.error


def test_resume_continues_the_same_sub_conversation(
    workspace: Path, parent_dir: Path, finish: Factory
) -> None:
    llm = TestLLM.from_messages([finish("first answer"), finish("second answer")])
    manager = TaskManager(str(workspace), persistence_dir=parent_dir, llm=llm)
    first = manager.start("first prompt")
    second = manager.resume(first.id, "second prompt")
    manager.close()
    assert second.id == first.id
    assert second.conversation_id == first.conversation_id
    assert second.result == "second answer"
    seen = [message.text for message in llm.calls[1]]
    assert "first prompt" in seen and "second prompt" in seen


def test_resume_in_memory_when_the_parent_does_not_persist(
    workspace: Path, tmp_path: Path, finish: Factory
) -> None:
    before = sorted(p.name for p in tmp_path.iterdir())
    llm = TestLLM.from_messages([finish("one"), finish("two")])
    manager = TaskManager(str(workspace), llm=llm)
    first = manager.start("first prompt")
    second = manager.resume(first.id, "again")
    manager.close()
    assert second.result == "two"
    assert "first prompt" in [message.text for message in llm.calls[1]]
    assert manager.subagents_dir is None
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_persisting_manager_stores_index_and_sub_conversation_under_subagents(
    workspace: Path, parent_dir: Path, finish: Factory
) -> None:
    manager = TaskManager(
        str(workspace), persistence_dir=parent_dir, llm=TestLLM.from_messages([finish("ok")])
    )
    record = manager.start("go", description="a label")
    manager.close()
    subagents = parent_dir / "subagents"
    index = json.loads((subagents / INDEX_FILE).read_text())
    entry = index["tasks"][record.id]
    assert entry["conversation_id"] == record.conversation_id
    assert entry["status"] == "completed"
    assert entry["description"] == "a label"
    assert (subagents / record.conversation_id / EVENTS_FILE).exists()


def test_fresh_manager_reloads_the_index_and_resumes(
    workspace: Path, parent_dir: Path, finish: Factory
) -> None:
    first = TaskManager(str(workspace), persistence_dir=parent_dir)
    record = first.start("remember 7", llm=TestLLM.from_messages([finish("noted")]))
    first.close()
    llm = TestLLM.from_messages([finish("it was 7")])
    second = TaskManager(str(workspace), persistence_dir=parent_dir, llm=llm)
    assert second.get(record.id) == record
    resumed = second.resume(record.id, "what was it?")
    second.close()
    assert resumed.result == "it was 7"
    assert "remember 7" in [message.text for message in llm.calls[0]]


def test_running_entry_left_by_a_dead_process_reads_as_interrupted(
    workspace: Path, parent_dir: Path
) -> None:
    folder = parent_dir / "subagents"
    folder.mkdir()
    stale = TaskRecord(id="task_x", status="running", conversation_id="ab" * 16)
    (folder / INDEX_FILE).write_text(
        json.dumps({"version": 1, "tasks": {"task_x": stale.model_dump(mode="json")}})
    )
    record = TaskManager(str(workspace), persistence_dir=parent_dir).get("task_x")
    assert record is not None
    assert record.status == "error"
    assert record.error is not None and "Interrupted" in record.error


def test_corrupt_index_does_not_stop_new_tasks(
    workspace: Path, parent_dir: Path, finish: Factory
) -> None:
    (parent_dir / "subagents").mkdir()
    (parent_dir / "subagents" / INDEX_FILE).write_text("[1, 2")
    manager = TaskManager(
        str(workspace), persistence_dir=parent_dir, llm=TestLLM.from_messages([finish("fine")])
    )
    assert manager.tasks() == []
    record = manager.start("go")
    manager.close()
    assert record.status == "completed"
    assert record.id in json.loads((parent_dir / "subagents" / INDEX_FILE).read_text())["tasks"]


def test_resuming_an_unknown_task_names_the_known_ones(workspace: Path, finish: Factory) -> None:
    manager = TaskManager(str(workspace), llm=TestLLM.from_messages([finish("ok")]))
    known = manager.start("go")
    with pytest.raises(UnknownTaskError, match=known.id):
        manager.resume("task_nope", "hello")
    manager.close()


def test_resume_with_missing_conversation_files_is_refused(
    workspace: Path, parent_dir: Path
) -> None:
    folder = parent_dir / "subagents"
    folder.mkdir()
    gone = TaskRecord(id="task_gone", status="completed", conversation_id="cd" * 16)
    (folder / INDEX_FILE).write_text(
        json.dumps({"version": 1, "tasks": {"task_gone": gone.model_dump(mode="json")}})
    )
    manager = TaskManager(str(workspace), persistence_dir=parent_dir, llm=TestLLM.from_messages([]))
    with pytest.raises(TaskError, match="missing"):
        manager.resume("task_gone", "continue")


def test_unknown_subagent_type_is_refused(workspace: Path) -> None:
    manager = TaskManager(str(workspace), llm=TestLLM.from_messages([]))
    with pytest.raises(ValueError, match="general-purpose"):
        manager.start("go", subagent_type="wizard")


def test_without_any_llm_the_error_says_how_to_give_one(workspace: Path) -> None:
    with pytest.raises(TaskError, match="llm"):
        TaskManager(str(workspace)).start("go")


def test_blank_prompt_is_refused(workspace: Path) -> None:
    with pytest.raises(TaskError, match="prompt"):
        TaskManager(str(workspace), llm=TestLLM.from_messages([])).start("  ")


def test_parallel_tasks_all_complete_and_all_reach_the_index(
    workspace: Path, parent_dir: Path, finish: Factory
) -> None:
    manager = TaskManager(str(workspace), persistence_dir=parent_dir)
    results: list[TaskRecord] = []

    def start(n: int) -> None:
        llm = TestLLM.from_messages([finish(f"answer {n}")])
        results.append(manager.start(f"prompt {n}", llm=llm))

    threads = [threading.Thread(target=start, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    manager.close()
    assert sorted(record.result or "" for record in results) == [f"answer {n}" for n in range(4)]
    index = json.loads((parent_dir / "subagents" / INDEX_FILE).read_text())
    assert {record.id for record in results} == set(index["tasks"])
    assert {entry["status"] for entry in index["tasks"].values()} == {"completed"}
