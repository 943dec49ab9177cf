"""More persisted conversations than the process may open files: all open, all append.

Runs in a subprocess whose descriptor limit (RLIMIT_NOFILE) is lowered to 64.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LIMIT = 64
CONVERSATIONS = 150

SCRIPT = """
import json, os, resource, sys, uuid
from openhands.sdk import Agent, LocalConversation
from openhands.sdk.testing import TestLLM

limit, count, root = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

def open_conversation(conversation_id=None):
    return LocalConversation(
        Agent(llm=TestLLM.from_messages([])),
        os.path.join(root, "work"),
        persistence_dir=os.path.join(root, "conversations"),
        conversation_id=conversation_id,
    )

live = [open_conversation() for _ in range(count)]       # all open at once
for round_ in range(2):
    for conversation in live:
        conversation.send_message(f"round {round_} for {conversation.id.hex}")
most_fds = len(os.listdir("/proc/self/fd"))
ids = [conversation.id for conversation in live]
for conversation in live:
    conversation.close()

reopened = [open_conversation(conversation_id) for conversation_id in ids]
for conversation in reopened:
    conversation.send_message("after reopening")
texts = [
    [e.llm_message.text for e in c.state.events if e.kind == "MessageEvent"] for c in reopened
]
for conversation in reopened:
    conversation.close()
print(json.dumps({"most_fds": most_fds, "texts": texts, "ids": [i.hex for i in ids]}))
"""


def test_more_conversations_than_descriptors_open_and_append(tmp_path: Path) -> None:
    script = tmp_path / "many.py"
    script.write_text(SCRIPT)

    done = subprocess.run(
        [sys.executable, str(script), str(LIMIT), str(CONVERSATIONS), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )

    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["most_fds"] < LIMIT
    assert len(result["texts"]) == CONVERSATIONS
    for conversation_id, texts in zip(result["ids"], result["texts"], strict=True):
        assert texts == [
            f"round 0 for {conversation_id}",
            f"round 1 for {conversation_id}",
            "after reopening",
        ]
