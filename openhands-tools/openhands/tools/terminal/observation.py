"""`TerminalObservation`: what one terminal call answers, in the reference's JSON shape."""

from __future__ import annotations

import re
from typing import Any

from openhands.sdk.llm import ImageContent, TextContent
from openhands.sdk.tool import Observation
from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

__all__ = ["TerminalMetadata", "TerminalObservation"]


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


_NOTE = re.compile(r"^\[(.*)\]$", re.MULTILINE)


class TerminalObservation(Observation):
    """The output of a terminal call and how the command ended.

    `content` (and so `text`) is the command's output; `notes` say how it ended (exit code,
    still running, truncation...). The LLM reads the output followed by the notes.

    Its JSON is the reference SDK's (`timeout`, and `metadata` holding the exit code, the
    working directory and the notes as `suffix`), so the reference's clients read it; both
    that shape and this class's field names are read back.
    """

    command: str = ""
    exit_code: int | None = Field(
        default=None, description="The command's exit status; None while it is still running."
    )
    timed_out: bool = False
    working_dir: str | None = None
    notes: list[str] = Field(
        default_factory=list, description="How the call ended, shown to the LLM after the output."
    )

    @model_validator(mode="before")
    @classmethod
    def _from_reference_shape(cls, data: Any) -> Any:
        if not isinstance(data, dict) or ("metadata" not in data and "timeout" not in data):
            return data
        data = dict(data)
        metadata = data.pop("metadata", None) or {}
        data.pop("full_output_save_dir", None)
        if "timeout" in data:
            data.setdefault("timed_out", bool(data.pop("timeout")))
        if isinstance(metadata, dict):
            data.setdefault("working_dir", metadata.get("working_dir"))
            suffix = metadata.get("suffix") or ""
            data.setdefault("notes", _NOTE.findall(suffix))
        if data.get("command") is None:
            data["command"] = ""
        return data

    @model_serializer(mode="wrap")
    def _to_reference_shape(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        notes = data.pop("notes", [])
        working_dir = data.pop("working_dir", None)
        data["timeout"] = data.pop("timed_out", False)
        data["metadata"] = {
            "exit_code": -1 if self.exit_code is None else self.exit_code,
            "working_dir": working_dir,
            "suffix": "\n".join(f"[{note}]" for note in notes),
        }
        return data

    @property
    def metadata(self) -> TerminalMetadata:
        """The exit code, folder and notes under the reference's names (read-only)."""
        return TerminalMetadata(
            exit_code=-1 if self.exit_code is None else self.exit_code,
            working_dir=self.working_dir,
            suffix="\n".join(f"[{note}]" for note in self.notes),
        )

    @property
    def timeout(self) -> bool:
        """The reference's name for `timed_out`."""
        return self.timed_out

    @property
    def to_llm_content(self) -> list[TextContent | ImageContent]:
        """The output, then each note in brackets (an error gets a header line first)."""
        lines = [self.text] if self.text else []
        lines.extend(f"[{note}]" for note in self.notes)
        parts: list[TextContent | ImageContent] = []
        if self.is_error:
            parts.append(TextContent(text=self.ERROR_MESSAGE_HEADER))
        parts.append(TextContent(text="\n".join(lines)))
        return parts
