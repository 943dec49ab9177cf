"""Terminal output for an LLM: ANSI codes stripped, carriage returns resolved; and how a
command ended under the reference SDK's names (`TerminalMetadata`)."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

# CSI (colours, cursor moves), OSC (window titles, hyperlinks) and two-byte escapes.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[@-Z\\-_]"
)
# Control characters other than tab and newline (carriage returns are handled separately).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences and stray control characters."""
    return _CONTROL.sub("", _ANSI.sub("", text))


def _resolve_carriage_returns(line: str) -> str:
    # "\r" moves back to the start of the line and later text overwrites it, as on a screen:
    # a progress bar that redraws itself leaves only its last drawing.
    if "\r" not in line:
        return line
    shown = ""
    for part in line.split("\r"):
        shown = part + shown[len(part) :]
    return shown


def clean_output(text: str) -> str:
    """Terminal bytes as the LLM should read them: no escapes, one drawing per line."""
    text = text.replace("\r\n", "\n")
    lines = [_resolve_carriage_returns(line) for line in strip_ansi(text).split("\n")]
    return "\n".join(lines)


class TerminalMetadata(BaseModel):
    """How a command ended, under the reference SDK's names (`observation.metadata`)."""

    exit_code: int = Field(default=-1, description="The exit status; -1 while still running.")
    pid: int = Field(default=-1, description="Not tracked here: always -1.")
    username: str | None = None
    hostname: str | None = None
    working_dir: str | None = Field(default=None, description="The shell's folder afterwards.")
    py_interpreter_path: str | None = None
    prefix: str = ""
    suffix: str = Field(default="", description="The notes, each in brackets, one a line.")
