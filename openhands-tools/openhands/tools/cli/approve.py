"""`--confirm`: the person at the terminal approves each tool call the agent wants to make.

The conversation gets the `AlwaysConfirm` policy (`finish` and `think` never ask). When calls
wait, the main thread (`drive`'s poll) shows them and reads one answer from stdin:

    y  run them, this once
    n  don't run them (then an optional reason the agent reads)
    a  run them, and from now on run calls like these without asking, in this conversation
       (a terminal command: the same first words, e.g. `python3 ...`; another tool: any call)
    t  run them, and trust their tools: any call of them runs without asking, in this
       conversation (offered when it allows more than `a`)

Each choice is printed with exactly what it allows before the question.

Ctrl-C while it asks stops the goal as usual; an end of input (stdin closed) stops it too.
The answer goes to the conversation the same way locally and on a server (`ApprovalDesk`).
"""

from __future__ import annotations

import difflib
import os
import select
import sys
import threading
from pathlib import Path
from typing import Any, Protocol, TextIO

from openhands.sdk.event import ActionEvent
from openhands.sdk.security.approval_rules import AllowRule, call_arguments, suggested_rules
from openhands.sdk.security.confirmation_policy import ConfirmationPolicyBase, NeverConfirm
from openhands.tools.cli.describe import describe_event
from openhands.tools.cli.views import GoalView

READ_POLL_SECONDS = 0.2
"""How often a waiting prompt looks whether Ctrl-C was pressed."""

PREVIEW_LINES = 40
"""How many lines of a file edit's diff the question shows (the rest is counted)."""

SCOPE = "(this conversation only)"

ANSWER_PROMPT = "Your answer [{keys}]: "
"""The question's last line (the choices are listed above it)."""


class ApprovalDesk(Protocol):
    """Where the answers go: a local conversation, or one on an agent server."""

    @property
    def pending_actions(self) -> list[ActionEvent]:
        """The calls waiting for approval now (empty when none waits)."""
        ...

    def approve_pending_actions(self) -> None:
        """Run the waiting calls."""
        ...

    def reject_pending_actions(self, reason: str = ...) -> None:
        """Reject the waiting calls; the agent reads `reason`."""
        ...

    def add_approval_rule(self, rule: AllowRule) -> None:
        """Always allow what `rule` matches in this conversation."""
        ...


def edit_preview(tool_name: str, arguments: dict[str, Any]) -> list[str]:
    """A file edit as the diff it would make (`+`/`-` lines, at most PREVIEW_LINES); [] for
    anything else."""
    if tool_name != "file_editor":
        return []
    command = arguments.get("command")
    old: list[str] = []
    new: list[str] = []
    if command == "create":
        new = str(arguments.get("file_text") or "").splitlines()
    elif command == "str_replace":
        old = str(arguments.get("old_str") or "").splitlines()
        new = str(arguments.get("new_str") or "").splitlines()
    elif command == "insert":
        new = str(arguments.get("new_str") or "").splitlines()
    else:
        return []
    lines = [
        line
        for line in difflib.unified_diff(old, new, lineterm="", n=2)
        if not line.startswith(("---", "+++", "@@"))
    ]
    if len(lines) > PREVIEW_LINES:
        hidden = len(lines) - PREVIEW_LINES
        lines = [*lines[:PREVIEW_LINES], f"... {hidden} more lines"]
    return lines


def answer_choices(calls: list[ActionEvent]) -> dict[str, str]:
    """The answers offered for `calls`, each with what exactly it allows (`t` only when it
    allows more than `a`: for a terminal command, not for a file edit)."""
    count = "it" if len(calls) == 1 else "them"
    like = suggested_rules(calls, whole_tools=False)
    tools = suggested_rules(calls, whole_tools=True)
    choices = {
        "y": f"run {count}, this once",
        "n": f"don't run {count} (you can tell the agent why)",
    }
    if like:
        allowed = "; ".join(rule.describe() for rule in like)
        choices["a"] = f"run {count}, and from now on run {allowed} without asking {SCOPE}"
    if tools and tools != like:
        allowed = "; ".join(rule.describe() for rule in tools)
        choices["t"] = (
            f"run {count}, and trust the tool: from now on run {allowed} without asking, "
            f"whatever it does {SCOPE}"
        )
    return choices


def approval_note(policy: ConfirmationPolicyBase | None) -> str | None:
    """What a resumed goal says when its conversation asks before tool calls although this
    run was started without --confirm (the setting belongs to the conversation), else None."""
    if policy is None or isinstance(policy, NeverConfirm):
        return None
    return (
        "approval: this conversation asks before tool calls (it was started with --confirm "
        "or set so on the page); answer each question below, or `t` to trust a tool."
    )


class TerminalApprover:
    """Asks about the calls that wait, from the main thread (see the module docstring)."""

    def __init__(
        self,
        desk: ApprovalDesk,
        view: GoalView,
        workdir: Path | None = None,
        stdin: TextIO | None = None,
    ) -> None:
        """Answer for `desk`, showing the question through `view` (paths relative to
        `workdir`), reading `stdin`."""
        self._desk = desk
        self._view = view
        self._workdir = workdir
        self._lines = _Lines(stdin or sys.stdin)
        self._answered: set[str] = set()

    def __call__(self, pressed: threading.Event) -> None:
        """Ask about the calls waiting now, unless they were answered or Ctrl-C was pressed."""
        if pressed.is_set():
            return
        calls = [call for call in self._desk.pending_actions if call.id not in self._answered]
        if not calls:
            return
        self._view.hold()
        try:
            self._ask(calls, pressed)
        finally:
            self._view.release()

    def _ask(self, calls: list[ActionEvent], pressed: threading.Event) -> None:
        count = "call waits" if len(calls) == 1 else f"{len(calls)} calls wait"
        self._view.notice(f"approval: the agent's {count} for your answer:")
        for call in calls:
            self._view.notice(f"  {describe_event(call, self._workdir, full=True)}")
            for line in edit_preview(call.tool_name, call_arguments(call)):
                self._view.notice(f"    {line}")
        choices = answer_choices(calls)
        for key, meaning in choices.items():
            self._view.notice(f"  {key}  {meaning}")
        keys = "/".join(choices)
        while True:
            answer = self._read_line(ANSWER_PROMPT.format(keys=keys), pressed, calls)
            if answer is None:
                return  # Ctrl-C, end of input, or answered elsewhere
            choice = answer.strip().lower()[:1]
            # `t` where it is not listed means what `a` means (the same rules): accepted.
            if choice in choices or (choice == "t" and "a" in choices):
                break
            self._view.notice(f"approval: answer {', '.join(choices)}.")
        self._answered.update(call.id for call in calls)
        if choice == "n":
            reason = self._read_line("Reason for the agent (Enter: none): ", pressed, calls)
            text = (reason or "").strip() or "The user rejected this action."
            self._desk.reject_pending_actions(text)
            self._view.notice("approval: rejected; the agent goes on with the reason.")
            return
        if choice in ("a", "t"):
            for rule in suggested_rules(calls, whole_tools=choice == "t"):
                self._desk.add_approval_rule(rule)
                self._view.notice(f"approval: from now on {rule.describe()} run without asking.")
        self._desk.approve_pending_actions()

    def _read_line(
        self, prompt: str, pressed: threading.Event, calls: list[ActionEvent]
    ) -> str | None:
        """One line of input; None at Ctrl-C, at the end of input (which stops the goal), or
        once none of `calls` waits any more (answered on the page, or the goal stopped)."""
        sys.stderr.write(prompt)
        sys.stderr.flush()
        ids = {call.id for call in calls}
        while not pressed.is_set():
            if not ids & {call.id for call in self._desk.pending_actions}:
                self._view.notice("approval: answered elsewhere; going on.")
                return None
            line = self._lines.next_line(READ_POLL_SECONDS)
            if line == "":
                self._view.notice("approval: no more input (stdin closed): stopping the goal.")
                pressed.set()
                return None
            if line is not None:
                return line
        return None


class _Lines:
    """Lines from a file descriptor, read without blocking longer than a poll (the text
    layer of `sys.stdin` would buffer ahead and hide typed lines from `select`)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._buffer = b""
        self._ended = False
        try:
            self._fd: int | None = stream.fileno()
        except (OSError, ValueError, AttributeError):
            self._fd = None  # not a real file (a test's StringIO): read it directly

    def next_line(self, wait: float) -> str | None:
        """The next line ("" at the end of input), or None when none came within `wait` s."""
        if self._fd is None:
            return self._stream.readline()
        while b"\n" not in self._buffer and not self._ended:
            ready, _, _ = select.select([self._fd], [], [], wait)
            if not ready:
                return None
            chunk = os.read(self._fd, 4096)
            self._ended = chunk == b""
            self._buffer += chunk
        if b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            return line.decode(errors="replace") + "\n"
        rest, self._buffer = self._buffer, b""
        return rest.decode(errors="replace")  # "" once the input ended


__all__ = ["ApprovalDesk", "TerminalApprover", "answer_choices", "approval_note", "edit_preview"]
