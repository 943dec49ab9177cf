"""Read-only views for the file editor: numbered file lines and a shallow directory tree."""

from __future__ import annotations

import io
from pathlib import Path

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.llm.message import scrub_surrogates
from openhands.sdk.workspace.agent_files import AgentFiles

MAX_VIEW_CHARS = 20_000  # what one view may return (the LLM's context is the scarce thing)
MAX_LINE_CHARS = 2_000  # a minified line is cut, not allowed to fill the view
DEFAULT_PAGE_LINES = 400  # suggested page size when a file is too big to show whole
MAX_TREE_ENTRIES = 600
BINARY_SNIFF_BYTES = 8192


class EditorError(OpenHandsError):
    """An editor command could not be carried out; the message tells the agent what to do."""


def is_binary(head: bytes) -> bool:
    """True if a file whose first bytes are `head` looks binary (a NUL byte among them)."""
    return b"\x00" in head[:BINARY_SNIFF_BYTES]


def binary_error(path: Path) -> EditorError:
    """The refusal given for binary or non-UTF-8 files."""
    return EditorError(
        f"{path} is a binary file (or not UTF-8 text); file_editor only views and edits text. "
        "Inspect it with the terminal instead (e.g. `file`, `xxd <path> | head`)."
    )


def number_line(number: int, line: str) -> str:
    """One line as `cat -n` shows it; very long lines are cut with a marker."""
    line = line.rstrip("\r\n")
    if len(line) > MAX_LINE_CHARS:
        line = f"{line[:MAX_LINE_CHARS]}... [line cut: {len(line)} characters in all]"
    return f"{number:6}\t{line}"


def view_file(files: AgentFiles, path: Path, view_range: list[int] | None) -> str:
    """Numbered lines of a text file: all of it, the range asked for, or a first page.

    Read through `files` (regular files only, opened without a race); streamed, so a big
    file is paged, never held whole."""
    start, end = _parse_range(view_range)
    shown: list[str] = []
    used = 0
    last_shown = start - 1
    total = 0
    budget_hit = False
    undecodable = False
    # surrogateescape (not "replace") so that a file that is not UTF-8 can be told apart.
    with files.open_file(path) as raw:
        if is_binary(raw.peek(BINARY_SNIFF_BYTES)):
            raise binary_error(path)
        handle = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline="")
        for total, line in enumerate(handle, start=1):
            if total < start or (end is not None and total > end) or budget_hit:
                continue
            shown_line = scrub_surrogates(line)
            undecodable = undecodable or shown_line != line
            rendered = number_line(total, shown_line)
            if used + len(rendered) + 1 > MAX_VIEW_CHARS and shown:
                budget_hit = True
                continue
            shown.append(rendered)
            used += len(rendered) + 1
            last_shown = total
    if start > max(total, 1):
        raise EditorError(
            f"view_range starts at line {start} but {path} has only {total} lines; "
            f"use a start between 1 and {max(total, 1)}."
        )
    header = f"Here's the result of running `cat -n` on {path}:"
    if total == 0:
        return f"{header}\n(the file is empty)\n"
    if end is not None and end > total:
        header += f" (view_range end {end} is past the last line, {total})"
    if undecodable:
        header += (
            "\n[This file is not valid UTF-8: undecodable bytes are shown as \ufffd. file_editor "
            "cannot edit it; use the terminal (e.g. iconv, sed) instead.]"
        )
    body = "\n".join(shown)
    wanted_end = total if end is None else min(end, total)
    if last_shown < wanted_end:
        page_end = min(last_shown + DEFAULT_PAGE_LINES, total)
        body += (
            f"\n[Showing lines {start}-{last_shown} of {total}: the rest did not fit in one "
            f"view. Use view_range=[{last_shown + 1}, {page_end}] to see more, or search "
            "with `grep -n` in the terminal.]"
        )
    return f"{header}\n{body}\n"


def _parse_range(view_range: list[int] | None) -> tuple[int, int | None]:
    if view_range is None:
        return 1, None
    if len(view_range) != 2:
        raise EditorError("view_range must be two integers [start, end]; end -1 means the end.")
    start, end = view_range
    if start < 1:
        raise EditorError(
            f"view_range start must be >= 1 (lines are numbered from 1), got {start}."
        )
    if end == -1:
        return start, None
    if end < start:
        raise EditorError(
            f"view_range end ({end}) is before its start ({start}); use end >= start or -1."
        )
    return start, end


def view_directory(files: AgentFiles, path: Path, depth: int = 2) -> str:
    """Files and folders up to `depth` levels below `path`, hidden ones skipped (dot files,
    and what the agent's sandbox hides: `files` lists only what it shows)."""
    entries: list[str] = []
    truncated = False

    def walk(folder: Path, level: int) -> None:
        nonlocal truncated
        try:
            children = files.list_dir(folder)
        except OSError:
            return
        for child in children:
            if child.name.startswith("."):
                continue
            if len(entries) >= MAX_TREE_ENTRIES:
                truncated = True
                return
            is_dir = child.kind == "dir"
            shown = folder / child.name
            entries.append(f"{shown}/" if is_dir else str(shown))
            if is_dir and level < depth:
                walk(shown, level + 1)

    walk(path, 1)
    lines = [
        f"Here are the files and directories up to {depth} levels deep in {path}, "
        "excluding hidden items:",
        f"{path}/",
        *entries,
    ]
    if truncated:
        lines.append(
            f"[Listing stopped at {MAX_TREE_ENTRIES} entries; view a subdirectory to see more.]"
        )
    return "\n".join(lines) + "\n"
