"""The apply_patch format (the one GPT-5-class models are trained to write): parse and apply.

    *** Begin Patch
    *** Add File: docs/new.md
    +every line of the new file, each prefixed with +
    *** Update File: src/app.py
    *** Move to: src/main.py          (optional: rename while editing)
    @@ def handler():                 (optional: a line to find first, to place the hunk)
     context line (a space)
    -line removed
    +line added
    *** Delete File: old.txt
    *** End Patch

A hunk's context and removed lines must appear in the file, in order, after the previous
hunk (matched exactly, else ignoring trailing whitespace, else ignoring surrounding
whitespace; `fuzz` counts the looser matches). `*** End of File` after a hunk anchors it at
the end. Everything is checked before anything is written (`plan_patch`), so a patch whose
context does not match changes no file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from openhands.sdk.errors import OpenHandsError

__all__ = ["FileChange", "PatchError", "PatchPlan", "parse_patch", "plan_patch"]

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"
SHOWN_LINES = 6
"""How many lines of a hunk that does not match an error message quotes."""


class PatchError(OpenHandsError, ValueError):
    """A patch that cannot be applied; the message says where and why (nothing was written)."""


@dataclass
class Hunk:
    """One `@@` section of an update: where to look, then old and new lines."""

    anchor: str | None
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)  # ' ', '-' or '+' per hunk line
    at_end: bool = False
    line: int = 0  # the patch line it starts on, for errors


@dataclass
class FileOp:
    """One file section of a patch."""

    kind: str  # "add", "delete" or "update"
    path: str
    lines: list[str] = field(default_factory=list)  # "add": the new file's lines
    move_to: str | None = None
    hunks: list[Hunk] = field(default_factory=list)


@dataclass
class FileChange:
    """What applying the patch does to one path: its new text, or None to delete it."""

    path: str
    kind: str  # "A" added, "M" modified, "D" deleted
    content: str | None
    moved_from: str | None = None


@dataclass
class PatchPlan:
    """Every file change of a patch, computed in memory and not yet written."""

    changes: list[FileChange]
    fuzz: int = 0


def parse_patch(text: str) -> list[FileOp]:
    """The file sections of a patch. Raises PatchError naming the line that is wrong."""
    lines = text.replace("\r\n", "\n").strip("\n").split("\n")
    if not lines or lines[0].strip() != BEGIN:
        raise PatchError(f"The patch must start with '{BEGIN}' on its own line")
    if lines[-1].strip() != END:
        raise PatchError(f"The patch must end with '{END}' on its own line")
    ops: list[FileOp] = []
    index = 1
    last = len(lines) - 1
    while index < last:
        line = lines[index]
        if line.startswith(ADD):
            op = FileOp("add", _path(line, ADD, index))
            index += 1
            while index < last and not lines[index].startswith("*** "):
                if not lines[index].startswith("+"):
                    raise PatchError(
                        f"Patch line {index + 1}: every line of an added file starts with '+' "
                        f"(got {lines[index]!r})"
                    )
                op.lines.append(lines[index][1:])
                index += 1
            ops.append(op)
        elif line.startswith(DELETE):
            ops.append(FileOp("delete", _path(line, DELETE, index)))
            index += 1
        elif line.startswith(UPDATE):
            op = FileOp("update", _path(line, UPDATE, index))
            index += 1
            if index < last and lines[index].startswith(MOVE):
                op.move_to = _path(lines[index], MOVE, index)
                index += 1
            index = _parse_hunks(lines, index, last, op)
            if not op.hunks and op.move_to is None:
                raise PatchError(f"Patch line {index}: the update of {op.path} has no hunk")
            ops.append(op)
        elif not line.strip():
            index += 1
        else:
            raise PatchError(
                f"Patch line {index + 1}: expected '{ADD}', '{UPDATE}' or '{DELETE}', got {line!r}"
            )
    if not ops:
        raise PatchError("The patch changes no file")
    return ops


def _path(line: str, prefix: str, index: int) -> str:
    path = line[len(prefix) :].strip()
    if not path:
        raise PatchError(f"Patch line {index + 1}: no path after '{prefix.strip()}'")
    return path


def _parse_hunks(lines: list[str], index: int, last: int, op: FileOp) -> int:
    hunk: Hunk | None = None
    while index < last:
        line = lines[index]
        if line.startswith("@@"):
            anchor = line[2:].strip() or None
            hunk = Hunk(anchor=anchor, line=index + 1)
            op.hunks.append(hunk)
        elif line.strip() == END_OF_FILE:
            if hunk is None:
                raise PatchError(f"Patch line {index + 1}: '{END_OF_FILE}' before any hunk")
            hunk.at_end = True
        elif line.startswith("*** "):
            break
        else:
            if hunk is None:  # the first hunk may leave out its @@ line
                hunk = Hunk(anchor=None, line=index + 1)
                op.hunks.append(hunk)
            marker, body = (line[:1], line[1:]) if line else (" ", "")
            if marker in " -+":
                hunk.markers.append(marker)
            if marker == " ":
                hunk.old.append(body)
                hunk.new.append(body)
            elif marker == "-":
                hunk.old.append(body)
            elif marker == "+":
                hunk.new.append(body)
            else:
                raise PatchError(
                    f"Patch line {index + 1}: a hunk line starts with ' ', '-' or '+' "
                    f"(got {line!r})"
                )
        index += 1
    return index


def plan_patch(ops: list[FileOp], read: Callable[[str], str | None]) -> PatchPlan:
    """The new text of every file the patch touches, or PatchError; nothing is written.

    `read(path)` gives a file's text, or None when it does not exist.
    """
    current: dict[str, str | None] = {}
    changes: dict[str, FileChange] = {}
    fuzz = 0

    def text_of(path: str) -> str | None:
        if path not in current:
            current[path] = read(path)
        return current[path]

    for op in ops:
        existing = text_of(op.path)
        if op.kind == "add":
            if existing is not None:
                raise PatchError(f"Cannot add {op.path}: it exists already (update it instead)")
            content = "\n".join(op.lines) + "\n" if op.lines else ""
            current[op.path] = content
            changes[op.path] = FileChange(op.path, "A", content)
        elif op.kind == "delete":
            if existing is None:
                raise PatchError(f"Cannot delete {op.path}: there is no such file")
            current[op.path] = None
            changes[op.path] = FileChange(op.path, "D", None)
        else:
            if existing is None:
                raise PatchError(f"Cannot update {op.path}: there is no such file")
            content, used = _apply_hunks(op, existing)
            fuzz += used
            if op.move_to and op.move_to != op.path:
                if text_of(op.move_to) is not None:
                    raise PatchError(f"Cannot move {op.path} to {op.move_to}: it exists already")
                current[op.path] = None
                changes[op.path] = FileChange(op.path, "D", None)
                current[op.move_to] = content
                changes[op.move_to] = FileChange(op.move_to, "A", content, moved_from=op.path)
            else:
                current[op.path] = content
                previous = changes.get(op.path)
                kind = "A" if previous is not None and previous.kind == "A" else "M"
                changes[op.path] = FileChange(op.path, kind, content)
    return PatchPlan(list(changes.values()), fuzz)


def _apply_hunks(op: FileOp, text: str) -> tuple[str, int]:
    newline = "\r\n" if "\r\n" in text else "\n"
    body = text.replace("\r\n", "\n")
    ends_with_newline = body.endswith("\n")
    lines = body[:-1].split("\n") if ends_with_newline else body.split("\n")
    if body == "":
        lines = []
    cursor = 0
    fuzz = 0
    for hunk in op.hunks:
        if hunk.anchor is not None:
            found = _find(lines, [hunk.anchor], cursor, at_end=False)
            if found is None:
                raise PatchError(
                    f"In {op.path} (patch line {hunk.line}): the line {hunk.anchor!r} after "
                    f"'@@' was not found{_after(cursor)}; nothing was changed"
                )
            position, used = found
            fuzz += used
            cursor = position + 1
        if not hunk.old:
            position = len(lines) if hunk.at_end else cursor
            lines[position:position] = hunk.new
            cursor = position + len(hunk.new)
            continue
        found = _find(lines, hunk.old, cursor, at_end=hunk.at_end)
        if found is None:
            shown = "\n".join(f"  {line}" for line in hunk.old[:SHOWN_LINES])
            more = "\n  ..." if len(hunk.old) > SHOWN_LINES else ""
            raise PatchError(
                f"In {op.path} (patch line {hunk.line}): the hunk's context does not match the "
                f"file{_after(cursor)}. Expected these lines, in order:\n{shown}{more}\n"
                "Read the file again and resend the patch; nothing was changed."
            )
        position, used = found
        fuzz += used
        replacement = _replacement(hunk, lines[position : position + len(hunk.old)])
        lines[position : position + len(hunk.old)] = replacement
        cursor = position + len(replacement)
    result = "\n".join(lines)
    if lines and (ends_with_newline or not body):
        result += "\n"
    return result.replace("\n", newline) if newline != "\n" else result, fuzz


def _replacement(hunk: Hunk, matched: list[str]) -> list[str]:
    """The hunk's new lines, its context lines as the file has them (a looser match must not
    rewrite the whitespace of lines the patch did not change)."""
    result: list[str] = []
    old_index = 0
    new_index = 0
    for marker in hunk.markers:
        if marker == " ":
            result.append(matched[old_index])
            old_index += 1
            new_index += 1
        elif marker == "-":
            old_index += 1
        else:
            result.append(hunk.new[new_index])
            new_index += 1
    return result


def _after(cursor: int) -> str:
    return f" after line {cursor}" if cursor else ""


def _find(
    lines: list[str], wanted: list[str], start: int, *, at_end: bool
) -> tuple[int, int] | None:
    """(index, fuzz) of the first place at or after `start` where `wanted` matches."""
    size = len(wanted)
    normalizers: list[tuple[Callable[[str], str], int]] = [
        (lambda s: s, 0),
        (str.rstrip, 1),
        (str.strip, 100),
    ]
    for normalize, fuzz in normalizers:
        target = [normalize(line) for line in wanted]
        candidates = [len(lines) - size] if at_end else range(start, len(lines) - size + 1)
        for index in candidates:
            if index < start:
                continue
            if [normalize(line) for line in lines[index : index + size]] == target:
                return index, fuzz
    return None
