"""A task started in this process is resumed by a fresh TaskManager in another process."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from openhands.sdk import Message
from openhands.sdk.conversation.event_log import EVENTS_FILE
from openhands.sdk.testing import TestLLM
from openhands.tools.task import TaskManager

RESUME_SCRIPT = """
import json, sys
from openhands.sdk import Message, MessageToolCall
from openhands.sdk.testing import TestLLM
from openhands.tools.task import TaskManager

parent_dir, workspace, task_id = sys.argv[1:4]
finish = Message(
    role="assistant",
    tool_calls=[MessageToolCall(id="c9", name="finish", arguments='{"message": "second answer"}')],
)
llm = TestLLM.from_messages([finish])
manager = TaskManager(workspace, persistence_dir=parent_dir, llm=llm)
record = manager.resume(task_id, "second prompt")
manager.close()
print(json.dumps({"record": record.model_dump(mode="json"),
                  "seen": [m.text for m in llm.calls[0]]}))
"""


def _event_ids(folder: Path) -> list[str]:
    lines = (folder / EVENTS_FILE).read_text().splitlines()
    return [json.loads(line)["id"] for line in lines if line.strip()]


def test_task_resumes_in_a_second_process_with_the_same_events(
    workspace: Path, parent_dir: Path, tmp_path: Path, finish: Callable[[str], Message]
) -> None:
    manager = TaskManager(
        str(workspace),
        persistence_dir=parent_dir,
        llm=TestLLM.from_messages([finish("first answer")]),
    )
    record = manager.start("first prompt", description="cross process")
    manager.close()
    folder = parent_dir / "subagents" / record.conversation_id
    first_ids = _event_ids(folder)

    script = tmp_path / "resume.py"
    script.write_text(RESUME_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(parent_dir), str(workspace), record.id],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])

    assert answer["record"]["status"] == "completed"
    assert answer["record"]["result"] == "second answer"
    assert answer["record"]["conversation_id"] == record.conversation_id
    assert "first prompt" in answer["seen"] and "first answer" in answer["seen"]
    assert _event_ids(folder)[: len(first_ids)] == first_ids
    assert len(_event_ids(folder)) > len(first_ids)
    reloaded = TaskManager(str(workspace), persistence_dir=parent_dir).get(record.id)
    assert reloaded is not None and reloaded.result == "second answer"
