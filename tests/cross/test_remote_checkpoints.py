"""RemoteConversation's checkpoint API against a real server: take, list, diff, rewind."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk.remote import RemoteConversation
from openhands.sdk.remote.errors import RemoteConversationNotFoundError


def test_checkpoints_round_trip_through_the_server(
    conversation: RemoteConversation, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / "notes.md").write_text("v1\n")
    first = conversation.checkpoint("first")
    (project / "notes.md").write_text("v2\n")
    second = conversation.checkpoint("second")

    listed = conversation.list_checkpoints()
    diff = conversation.checkpoint_diff(second.id)
    whole = conversation.checkpoint_diff(second.id, base=first.id)
    result = conversation.rewind(first.id)

    assert [c.id for c in listed] == [first.id, second.id]
    assert [(f.path, f.additions, f.deletions) for f in diff.files] == [("notes.md", 1, 1)]
    assert whole.files == diff.files
    assert result.restored == ["notes.md"]
    assert (project / "notes.md").read_text() == "v1\n"


def test_an_unknown_checkpoint_names_itself(conversation: RemoteConversation) -> None:
    with pytest.raises(RemoteConversationNotFoundError, match="Checkpoint 0123456789ab"):
        conversation.rewind("0123456789ab")
