"""The Gemini file tools on real files: read pages, write, edit, list."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk import Agent, LocalConversation
from openhands.sdk.event import ObservationEvent
from openhands.sdk.testing import TestLLM
from openhands.tools.gemini import (
    GEMINI_FILE_TOOLS,
    EditAction,
    ListDirectoryAction,
    ReadFileAction,
    WriteFileAction,
)
from openhands.tools.gemini.edit import EditExecutor
from openhands.tools.gemini.list_directory import ListDirectoryExecutor
from openhands.tools.gemini.read_file import ReadFileExecutor
from openhands.tools.gemini.write_file import WriteFileExecutor


def test_read_file_pages_with_offset_and_limit(workspace: Path) -> None:
    (workspace / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    read = ReadFileExecutor(str(workspace))

    page = read(ReadFileAction(file_path="big.txt", offset=2, limit=3))

    assert page.file_content == "line 3\nline 4\nline 5"
    assert page.lines_shown == (3, 5) and page.total_lines == 10 and page.is_truncated
    assert "offset=5" in page.text


def test_read_file_of_a_missing_file_or_outside_path_is_an_error(workspace: Path) -> None:
    read = ReadFileExecutor(str(workspace))

    assert read(ReadFileAction(file_path="nope.txt")).is_error
    outside = read(ReadFileAction(file_path="../../etc/passwd"))
    assert outside.is_error and "outside the workspace" in outside.text


def test_write_file_creates_folders_then_overwrites(workspace: Path) -> None:
    write = WriteFileExecutor(str(workspace))

    created = write(WriteFileAction(file_path="a/b/new.txt", content="one\n"))
    replaced = write(WriteFileAction(file_path="a/b/new.txt", content="two\n"))

    assert created.is_new_file and not replaced.is_new_file
    assert replaced.old_content == "one\n"
    assert (workspace / "a" / "b" / "new.txt").read_text() == "two\n"
    assert [p.name for p in (workspace / "a" / "b").iterdir()] == ["new.txt"]  # no temp left


def test_edit_replaces_a_unique_match(workspace: Path) -> None:
    (workspace / "m.py").write_text("a = 1\nb = 2\n")

    result = EditExecutor(str(workspace))(
        EditAction(file_path="m.py", old_string="b = 2", new_string="b = 3")
    )

    assert not result.is_error and result.replacements_made == 1
    assert (workspace / "m.py").read_text() == "a = 1\nb = 3\n"


def test_edit_refuses_a_count_that_differs_and_leaves_the_file(workspace: Path) -> None:
    (workspace / "m.py").write_text("x\nx\n")
    edit = EditExecutor(str(workspace))

    twice = edit(EditAction(file_path="m.py", old_string="x", new_string="y"))
    missing = edit(EditAction(file_path="m.py", old_string="z", new_string="y"))
    both = edit(
        EditAction(file_path="m.py", old_string="x", new_string="y", expected_replacements=2)
    )

    assert twice.is_error and "occurs 2 times" in twice.text
    assert missing.is_error and "not found" in missing.text
    assert not both.is_error and (workspace / "m.py").read_text() == "y\ny\n"


def test_edit_with_an_empty_old_string_creates_a_file_only(workspace: Path) -> None:
    edit = EditExecutor(str(workspace))

    created = edit(EditAction(file_path="new.md", old_string="", new_string="# hi\n"))
    again = edit(EditAction(file_path="new.md", old_string="", new_string="# other\n"))

    assert created.is_new_file and (workspace / "new.md").read_text() == "# hi\n"
    assert again.is_error and "exists already" in again.text


def test_list_directory_shows_folders_first_with_sizes(workspace: Path) -> None:
    (workspace / "sub").mkdir()
    (workspace / "sub" / "deep.txt").write_text("12345")
    (workspace / "top.txt").write_text("abc")
    (workspace / ".git").mkdir()
    listing = ListDirectoryExecutor(str(workspace))

    flat = listing(ListDirectoryAction())
    deep = listing(ListDirectoryAction(recursive=True))

    assert [e.name for e in flat.entries] == ["sub", "top.txt"]
    assert [e.size for e in flat.entries] == [0, 3]
    assert "sub/deep.txt" in [e.name for e in deep.entries]


def test_the_four_tools_resolve_by_name_in_a_conversation(
    workspace: Path, tool_call, reply
) -> None:
    llm = TestLLM.from_messages(
        [
            tool_call("write_file", file_path="FACTS.txt", content="fact\n"),
            tool_call("edit", file_path="FACTS.txt", old_string="fact", new_string="a fact"),
            tool_call("read_file", file_path="FACTS.txt"),
            reply("done"),
        ]
    )
    conversation = LocalConversation(Agent(llm=llm, tools=list(GEMINI_FILE_TOOLS)), workspace)
    try:
        assert {"read_file", "write_file", "edit", "list_directory"} <= set(conversation.tools)
        conversation.send_message("write facts")
        conversation.run()
    finally:
        conversation.close()

    observations = [
        e.observation for e in conversation.state.events if isinstance(e, ObservationEvent)
    ]
    assert [o.is_error for o in observations] == [False, False, False]
    assert observations[-1].text == "a fact"
    assert (workspace / "FACTS.txt").read_text() == "a fact\n"
