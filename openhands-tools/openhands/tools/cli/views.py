"""How `openhands-goal` shows a goal: live widgets, plain lines, or JSON lines.

A view gets the goal's statuses (`status`), the agent's current action (`activity`, for a live
status line), each action and its result as lines that stay in the scrollback (`step`,
`result`) and the command's own remarks (`notice`), from any thread, and a last call to
`close`. The runner
picks one: `LiveView` on a terminal, `PlainView` when the output is not a TTY (or with
`--plain`), `JsonView` with `--json`.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from openhands.sdk.conversation.goal import GoalStatus
from openhands.tools.cli.describe import (
    THINKING,
    end_line,
    money,
    phase_line,
    requirements_line,
    round_label,
    shorten,
    verdict_line,
)

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

MAX_REQUIREMENT_ROWS = 8
"""How many requirements the live view lists under the status line."""


class GoalView(Protocol):
    """Where a running goal's progress goes. Every method may be called from any thread."""

    def begin(self, conversation_id: str, header: str) -> None:
        """The goal is about to start (or resume) in conversation `conversation_id`."""
        ...

    def status(self, status: GoalStatus) -> None:
        """A goal status was recorded (the same status may come twice; show it once)."""
        ...

    def activity(self, text: str) -> None:
        """What the agent does now, in a few words (see `describe_event`)."""
        ...

    def step(self, text: str) -> None:
        """What the agent just did (a tool call, or what it said), for the scrollback."""
        ...

    def result(self, text: str) -> None:
        """A tool call's result in one short line, for the scrollback (see `describe_result`)."""
        ...

    def notice(self, text: str) -> None:
        """A remark of the command itself (e.g. "stopping after the current step")."""
        ...

    def changes(self, text: str) -> None:
        """What a round changed in the workspace (a snapshot), in one line."""
        ...

    def diff(self, title: str, patch: str) -> None:
        """A unified diff under a title line (`--diff` at the end)."""
        ...

    def hold(self) -> None:
        """A question for the person follows: stop redrawing until `release()`."""
        ...

    def release(self) -> None:
        """The question was answered: draw again."""
        ...

    def close(self, final: GoalStatus | None, hint: str | None) -> None:
        """The goal is over (or could not run): show how it ended and what to do next."""
        ...


class JsonView:
    """One JSON object per line on stdout for each new status; remarks go to stderr.

    Each line is the full `GoalStatus` (as `GoalStatus.model_dump(mode="json")`) plus
    `conversation_id`.
    """

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        """Write statuses to `out` (default stdout) and remarks to `err` (default stderr)."""
        self._out = out or sys.stdout
        self._err = err or sys.stderr
        self._lock = threading.Lock()
        self._conversation_id = ""
        self._last: dict[str, Any] | None = None

    def begin(self, conversation_id: str, header: str) -> None:
        """Remember the conversation id that every line carries."""
        self._conversation_id = conversation_id

    def status(self, status: GoalStatus) -> None:
        """Print the status as one JSON line, unless it repeats the previous one."""
        data = status.model_dump(mode="json")
        with self._lock:
            if data == self._last:
                return
            self._last = data
            line = json.dumps({"conversation_id": self._conversation_id, **data})
            self._out.write(line + "\n")
            self._out.flush()

    def activity(self, text: str) -> None:
        """Not shown: the JSON lines are statuses only."""

    def step(self, text: str) -> None:
        """Not shown: the JSON lines are statuses only."""

    def result(self, text: str) -> None:
        """Not shown: the JSON lines are statuses only."""

    def notice(self, text: str) -> None:
        """Remarks go to stderr, so stdout stays machine-readable."""
        with self._lock:
            self._err.write(f"openhands-goal: {text}\n")
            self._err.flush()

    def changes(self, text: str) -> None:
        """Not shown: the JSON lines are statuses only."""

    def diff(self, title: str, patch: str) -> None:
        """Not shown (`--diff` is refused with `--json`)."""

    def hold(self) -> None:
        """Nothing is redrawn: nothing to hold."""

    def release(self) -> None:
        """Nothing to draw again."""

    def close(self, final: GoalStatus | None, hint: str | None) -> None:
        """Print the final status if it was not printed yet; the hint goes to stderr."""
        if final is not None:
            self.status(final)
        if hint:
            self.notice(hint)


class _Progress:
    """What the line and live views remember: the latest status, action and printed rounds."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.latest: GoalStatus | None = None
        self.activity = ""
        self.judged: set[int] = set()
        self.phase_key: tuple[int, str | None] | None = None

    def new_verdict(self, status: GoalStatus) -> str | None:
        """The verdict line of a round not shown before, else None."""
        row = status.last_round
        if row is None or row.iteration in self.judged:
            return None
        self.judged.add(row.iteration)
        return verdict_line(status)

    def new_phase(self, status: GoalStatus) -> str | None:
        """The phase line when an active goal entered another phase or round, else None."""
        if not status.active:
            return None
        key = (status.iteration, status.phase)
        if key == self.phase_key:
            return None
        self.phase_key = key
        if status.phase == "agent":
            self.activity = THINKING
        return phase_line(status)

    @property
    def label(self) -> str:
        return round_label(self.latest) if self.latest is not None else "round 1"


class PlainView:
    """Plain lines, one per change: phases, the agent's actions, verdicts and the end."""

    def __init__(self, out: TextIO | None = None) -> None:
        """Write to `out` (default stdout), flushing every line."""
        self._out = out or sys.stdout
        self._progress = _Progress()

    def _print(self, line: str) -> None:
        self._out.write(line + "\n")
        self._out.flush()

    def begin(self, conversation_id: str, header: str) -> None:
        """Print the header."""
        with self._progress.lock:
            self._print(header)

    def status(self, status: GoalStatus) -> None:
        """Print a new verdict and a new phase (each once)."""
        progress = self._progress
        with progress.lock:
            progress.latest = status
            verdict = progress.new_verdict(status)
            if verdict is not None:
                self._print(verdict)
            phase = progress.new_phase(status)
            if phase is not None:
                self._print(f"{progress.label} | {phase}")

    def activity(self, text: str) -> None:
        """Kept, not printed: `step` and `result` print each action and its result."""
        with self._progress.lock:
            self._progress.activity = text

    def step(self, text: str) -> None:
        """Print the agent's action."""
        progress = self._progress
        with progress.lock:
            self._print(f"{progress.label} | agent | {text}")

    def result(self, text: str) -> None:
        """Print the action's result."""
        progress = self._progress
        with progress.lock:
            self._print(f"{progress.label} | result | {text}")

    def notice(self, text: str) -> None:
        """Print the remark."""
        with self._progress.lock:
            self._print(text)

    def changes(self, text: str) -> None:
        """Print the line."""
        with self._progress.lock:
            self._print(text)

    def diff(self, title: str, patch: str) -> None:
        """Print the title and the diff as it is."""
        with self._progress.lock:
            self._print(title)
            if patch:
                self._out.write(patch if patch.endswith("\n") else patch + "\n")
                self._out.flush()

    def hold(self) -> None:
        """Lines are never redrawn: nothing to hold."""

    def release(self) -> None:
        """Nothing to draw again."""

    def close(self, final: GoalStatus | None, hint: str | None) -> None:
        """Print a verdict not shown yet, the end line and the hint."""
        with self._progress.lock:
            if final is not None:
                verdict = self._progress.new_verdict(final)
                if verdict is not None:
                    self._print(verdict)
                self._print(end_line(final))
            if hint:
                self._print(hint)


class LiveView:
    """A `rich` status block on a terminal: spinner, round, phase or action, cost, clock, and
    the requirements with proven / unproven marks. Verdicts are printed above it and stay."""

    def __init__(self, console: Console | None = None) -> None:
        """Draw on `console` (default: a new `rich` console on stdout)."""
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner

        self._console = console or Console()
        self._progress = _Progress()
        self._spinner = Spinner("dots")
        self._started = time.monotonic()
        self._live = Live(
            self, console=self._console, refresh_per_second=8, transient=True, auto_refresh=True
        )

    def begin(self, conversation_id: str, header: str) -> None:
        """Print the header and start drawing."""
        self._started = time.monotonic()
        self._print(header, "bold")
        self._live.start()

    def status(self, status: GoalStatus) -> None:
        """Keep the status; a new verdict is printed above the block."""
        progress = self._progress
        with progress.lock:
            progress.latest = status
            verdict = progress.new_verdict(status)
            progress.new_phase(status)
        if verdict is not None:
            complete = status.last_round is not None and status.last_round.complete
            self._print(verdict, "green" if complete else "yellow")

    def activity(self, text: str) -> None:
        """Show the agent's action in the status line."""
        with self._progress.lock:
            self._progress.activity = text

    def step(self, text: str) -> None:
        """Print the action above the block: it stays in the scrollback, however fast it ran."""
        self._print(f"● {text}", "bold")

    def result(self, text: str) -> None:
        """Print the action's result under it."""
        self._print(f"  ⎿ {text}", "dim")

    def notice(self, text: str) -> None:
        """Print the remark above the block."""
        self._print(text, "bold magenta")

    def _print(self, line: str, style: str = "") -> None:
        # A styled Text, not `print(style=...)`: that style would also tint the live block,
        # which rich draws again right after the printed line.
        from rich.text import Text

        self._console.print(Text(line, style=style))

    def changes(self, text: str) -> None:
        """Print the line above the block (it stays in the scrollback)."""
        self._print(text, "cyan")

    def diff(self, title: str, patch: str) -> None:
        """Print the title and the diff, added lines green and removed ones red."""
        self._print(title, "bold")
        for line in patch.splitlines():
            style = ""
            if line.startswith(("+++", "---", "diff --git")):
                style = "bold"
            elif line.startswith("+"):
                style = "green"
            elif line.startswith("-"):
                style = "red"
            elif line.startswith("@@"):
                style = "cyan"
            self._print(line, style)

    def hold(self) -> None:
        """Stop the live block while a question is asked (its redraws would eat the input)."""
        self._live.stop()

    def release(self) -> None:
        """Draw the live block again."""
        self._live.start()

    def close(self, final: GoalStatus | None, hint: str | None) -> None:
        """Stop drawing; print a last verdict, the end line and the hint."""
        if final is not None:
            self.status(final)
        self._live.stop()
        if final is not None:
            style = {"complete": "bold green", "capped": "bold yellow"}.get(
                final.status, "bold red"
            )
            self._print(end_line(final), style)
        if hint:
            self._print(hint)

    def __rich__(self) -> RenderableType:
        """The block: status line, then the requirements (drawn by `rich.live.Live`)."""
        from rich.console import Group
        from rich.text import Text

        with self._progress.lock:
            status = self._progress.latest
            doing = self._progress.activity or THINKING
            label = self._progress.label
        elapsed = int(time.monotonic() - self._started)
        what = phase_line(status) if status is not None else None
        if status is not None and not status.active:
            what = status.status
        elif status is not None and status.phase == "agent":
            what = f"agent: {doing}"
        cost = money(status.cost) if status is not None else money(0.0)
        self._spinner.text = Text.assemble(
            (label, "bold cyan"),
            "  ",
            what or "starting...",
            ("  " + f"{cost}  {elapsed // 60}:{elapsed % 60:02d}", "dim"),
        )
        rows: list[RenderableType] = [self._spinner]
        verdict = status.verdict if status is not None else None
        proven = requirements_line(verdict)
        if verdict is not None and verdict.requirements and proven is not None:
            rows.append(Text("  " + proven, style="dim"))
            for req in verdict.requirements[:MAX_REQUIREMENT_ROWS]:
                mark, style = ("✓", "green") if req.satisfied else ("✗", "red")
                rows.append(Text.assemble(("    " + mark + " ", style), shorten(req.text, 90)))
        elif verdict is not None and verdict.missing:
            rows.append(Text("  missing: " + shorten(verdict.missing, 120), style="dim"))
        return Group(*rows)


__all__ = ["GoalView", "JsonView", "LiveView", "PlainView"]
