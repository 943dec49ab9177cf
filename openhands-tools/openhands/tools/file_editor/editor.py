"""`FileEditor`: view, create, str_replace, insert and undo on text files, with per-file history.

Decisions (see docs/architecture.md): `create` refuses to overwrite an existing file (edit it
with str_replace/insert, or remove it in the terminal first), so a file the agent never read
is never silently clobbered; it creates missing parent folders. Relative paths are resolved
against the workspace. Undo history lives in memory, per editor (one per conversation).
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from openhands.sdk.workspace.agent_files import AgentFiles, agent_files
from openhands.sdk.workspace.file_errors import (
    AgentFileError,
    FileTooLargeError,
    MissingPathError,
)
from openhands.tools.file_editor.views import (
    EditorError,
    binary_error,
    is_binary,
    number_line,
    view_directory,
    view_file,
)

MAX_EDIT_BYTES = 20 * 1024 * 1024
MAX_HISTORY_PER_FILE = 20
SNIPPET_CONTEXT_LINES = 4


class FileEditor:
    """Text-file operations for one workspace; every successful edit can be undone.

    It runs in the server's process for an agent that runs in a sandbox: every file it
    touches goes through `AgentFiles`, so it sees and writes exactly what the agent's
    sandbox allows (no hidden path, writes only in the workspace, no symlink race).
    """

    def __init__(self, working_dir: str) -> None:
        self.working_dir = Path(working_dir)
        # path -> earlier contents, newest last; None means "the file did not exist".
        self._history: dict[Path, list[str | None]] = defaultdict(list)

    def files(self) -> AgentFiles:
        """The workspace's files as the agent's sandbox shows them now."""
        return agent_files(self.working_dir)

    def resolve(self, path: str) -> Path:
        """The absolute path `path` names (relative to the workspace), as shown to the
        agent; nothing is opened."""
        try:
            return Path(os.path.normpath(self.files().absolute(path)))
        except AgentFileError as exc:
            raise EditorError(f"{exc}.") from None

    # -- commands -----------------------------------------------------------------------------

    def view(self, path: str, view_range: list[int] | None = None) -> str:
        """Numbered lines of a file (optionally a range), or a directory two levels deep."""
        target = self.resolve(path)
        files = self.files()
        try:
            if files.is_dir(target):
                if view_range is not None:
                    raise EditorError("view_range only applies to files, not directories.")
                return view_directory(files, target)
            if not files.exists(target):
                raise EditorError(
                    f"{target} does not exist. Check the path (view a folder to list)."
                )
            return view_file(files, target, view_range)
        except AgentFileError as exc:
            raise EditorError(str(exc)) from None

    def create(self, path: str, file_text: str | None) -> str:
        """Create a new file with `file_text` (parent folders too); never overwrites."""
        if file_text is None:
            raise EditorError("file_text is required for command `create`.")
        target = self.resolve(path)
        files = self.files()
        try:
            if files.exists(target):
                kind = "a directory" if files.is_dir(target) else "a file"
                raise EditorError(
                    f"{target} already exists ({kind}); `create` never overwrites. Edit it "
                    "with str_replace or insert, or delete it in the terminal first."
                )
            files.write_text(target, file_text, exclusive=True, parents=True)
        except FileExistsError:
            raise EditorError(
                f"{target} already exists; `create` never overwrites. Edit it with "
                "str_replace or insert."
            ) from None
        except AgentFileError as exc:
            raise EditorError(str(exc)) from None
        self._remember(target, None)
        lines = file_text.count("\n") + (0 if file_text.endswith("\n") or not file_text else 1)
        return f"File created successfully at {target} ({lines} lines)."

    def str_replace(self, path: str, old_str: str | None, new_str: str | None) -> str:
        """Replace the one occurrence of `old_str` with `new_str` (empty/None deletes it)."""
        if not old_str:
            raise EditorError("old_str is required for `str_replace` and must not be empty.")
        new_str = new_str or ""
        target, content = self._read_text(path)
        if "\r\n" in content and "\r\n" not in old_str and "\n" in old_str:
            # The file uses CRLF; the model almost always writes "\n".
            old_str, new_str = old_str.replace("\n", "\r\n"), new_str.replace("\n", "\r\n")
        positions = _occurrences(content, old_str)
        note = ""
        if not positions and old_str.strip() and old_str.strip() != old_str:
            # Models often add or drop a space or newline around old_str: when the text
            # without them occurs exactly once, that is the place meant. new_str is kept as
            # given (its whitespace may matter, e.g. a Markdown line break).
            stripped = _occurrences(content, old_str.strip())
            if len(stripped) == 1:
                positions, old_str = stripped, old_str.strip()
                note = "(old_str matched once its leading/trailing whitespace was ignored.) "
        if not positions:
            raise EditorError(
                f"No replacement was performed: old_str did not appear verbatim in {target}. "
                "View the file and copy the exact text, including indentation."
            )
        if len(positions) > 1:
            lines = [content.count("\n", 0, pos) + 1 for pos in positions]
            raise EditorError(
                f"No replacement was performed: old_str occurs {len(positions)} times in "
                f"{target}, at lines {lines}. Include more surrounding lines so it is unique."
            )
        if old_str == new_str:
            raise EditorError("old_str and new_str are identical; nothing would change.")
        pos = positions[0]
        updated = content[:pos] + new_str + content[pos + len(old_str) :]
        self._write(target, updated, before=content)
        first = content.count("\n", 0, pos) + 1
        last = first + new_str.count("\n")
        return (
            f"The file {target} has been edited. {note}"
            f"{_snippet(updated, first, last, target)}"
            "Review the changes and make sure they are as expected."
        )

    def insert(self, path: str, insert_line: int | None, new_str: str | None) -> str:
        """Insert `new_str` after line `insert_line` (0 inserts at the top)."""
        if insert_line is None:
            raise EditorError("insert_line is required for `insert` (0 inserts at the top).")
        if new_str is None:
            raise EditorError("new_str is required for `insert`: the text to insert.")
        target, content = self._read_text(path)
        lines = content.splitlines(keepends=True)
        if insert_line < 0 or insert_line > len(lines):
            raise EditorError(
                f"insert_line {insert_line} is out of range: {target} has {len(lines)} lines "
                f"(use 0 to {len(lines)})."
            )
        newline = "\r\n" if "\r\n" in content else "\n"
        text = new_str if new_str.endswith(("\n", "\r")) else new_str + newline
        if insert_line == len(lines) and lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += newline
        updated = "".join([*lines[:insert_line], text, *lines[insert_line:]])
        self._write(target, updated, before=content)
        first = insert_line + 1
        last = insert_line + max(text.count("\n"), 1)
        return (
            f"The file {target} has been edited. "
            f"{_snippet(updated, first, last, target)}"
            "Review the changes and make sure they are as expected (indentation, duplicates)."
        )

    def undo_edit(self, path: str) -> str:
        """Restore the file to its content before the last edit made through this editor."""
        target = self.resolve(path)
        history = self._history.get(target)
        if not history:
            raise EditorError(f"No edit to undo for {target} (only file_editor edits are kept).")
        previous = history[-1]
        try:
            if previous is None:
                self.files().remove_file(target)
            else:
                self.files().write_text(target, previous)
        except MissingPathError:
            pass  # already gone: the undo of a creation is done
        except AgentFileError as exc:
            raise EditorError(str(exc)) from None
        history.pop()
        if previous is None:
            return f"Undid the creation of {target}: the file was removed."
        return f"Last edit to {target} undone; it has {len(previous.splitlines())} lines again."

    # -- helpers ------------------------------------------------------------------------------

    def _read_text(self, path: str) -> tuple[Path, str]:
        target = self.resolve(path)
        files = self.files()
        try:
            if files.is_dir(target):
                raise EditorError(f"{target} is a directory; this command needs a file.")
            data = files.read_bytes(target, limit=MAX_EDIT_BYTES)
        except MissingPathError:
            raise EditorError(
                f"{target} does not exist. Create it with the `create` command."
            ) from None
        except FileTooLargeError:
            raise EditorError(
                f"{target} is larger than {MAX_EDIT_BYTES // (1024 * 1024)} MB; edit it with "
                "terminal tools (sed, python) instead."
            ) from None
        except AgentFileError as exc:
            raise EditorError(str(exc)) from None
        if is_binary(data):
            raise binary_error(target)
        try:
            return target, data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise binary_error(target) from exc

    def _write(self, target: Path, content: str, *, before: str | None) -> None:
        try:
            self.files().write_text(target, content)
        except AgentFileError as exc:
            raise EditorError(str(exc)) from None
        self._remember(target, before)

    def _remember(self, target: Path, before: str | None) -> None:
        history = self._history[target]
        history.append(before)
        del history[:-MAX_HISTORY_PER_FILE]


def _occurrences(content: str, needle: str) -> list[int]:
    positions: list[int] = []
    start = content.find(needle)
    while start != -1:
        positions.append(start)
        start = content.find(needle, start + len(needle))
    return positions


def _snippet(content: str, first: int, last: int, target: Path) -> str:
    """Numbered lines around [first, last] so the agent can check its edit."""
    lines = content.splitlines()
    if not lines:
        return f"{target} is now empty.\n"
    lo = max(first - SNIPPET_CONTEXT_LINES, 1)
    hi = min(max(last, first) + SNIPPET_CONTEXT_LINES, len(lines))
    body = "\n".join(number_line(n, lines[n - 1]) for n in range(lo, hi + 1))
    return f"Here's the result of running `cat -n` on a snippet of {target}:\n{body}\n"
