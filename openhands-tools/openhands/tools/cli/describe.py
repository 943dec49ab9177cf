"""Short words for what a goal is doing: the agent's current action, a verdict, the end.

Pure functions from events and `GoalStatus` to one-line strings, shared by the plain and the
live views of `openhands-goal` (and easy to test without a terminal).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openhands.sdk.conversation.goal import GoalStatus, GoalVerdict
from openhands.sdk.event import (
    ActionEvent,
    AgentErrorEvent,
    Event,
    MessageEvent,
    ObservationEvent,
    UserRejectObservation,
)

ACTION_CHARS = 72
"""How long a description of the agent's action may get before it is cut with "..."."""

MISSING_CHARS = 160
"""How much of the judge's "missing" text a verdict line shows."""

RESULT_CHARS = 100
"""How long a tool result's line may get."""

QUIET_RESULTS = frozenset({"finish", "think"})
"""Tools whose result only repeats the call (its message or thought): no result line."""

THINKING = "thinking..."
"""The agent's activity while it waits for its LLM."""


def shorten(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with "..." when longer."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(0, limit - 3)].rstrip() + "..."


def describe_event(event: Event, workdir: Path | None = None, *, full: bool = False) -> str | None:
    """What the agent is doing after `event`, in a few words; None for events that say nothing.

    A tool call is its tool and the short form of its arguments (`terminal: pytest -q`,
    `file_editor: create src/app.py`); a tool result means the agent is thinking again.
    `full=True` keeps a call's whole description (a person approving it must see it all).
    """
    if isinstance(event, ActionEvent):
        text = f"{event.tool_name}: {_arguments(event, workdir)}".rstrip(": ")
        return text if full else shorten(text, ACTION_CHARS)
    if isinstance(event, ObservationEvent):
        return THINKING
    if isinstance(event, AgentErrorEvent):
        return shorten(f"{event.tool_name} failed: {event.error}", ACTION_CHARS)
    if isinstance(event, MessageEvent) and event.source == "agent":
        text = event.llm_message.text
        return shorten(f"says: {text}", ACTION_CHARS) if text.strip() else None
    return None


def describe_step(event: Event, workdir: Path | None = None) -> str | None:
    """The line the scrollback keeps for `event`: a tool call (`terminal: pytest -q`) or what
    the agent said; None for anything else (results have `describe_result`)."""
    if isinstance(event, ActionEvent):
        return shorten(
            f"{event.tool_name}: {_arguments(event, workdir)}".rstrip(": "), RESULT_CHARS
        )
    if isinstance(event, MessageEvent) and event.source == "agent":
        text = event.llm_message.text
        return shorten(f"says: {text}", RESULT_CHARS) if text.strip() else None
    return None


def describe_result(event: Event) -> str | None:
    """A tool call's result in one short line: how a command ended and its last output line
    (`exit 0 · 3 lines · 2 passed`), a file edit's message, an error or a rejection; None
    for events that are not results."""
    if isinstance(event, AgentErrorEvent):
        return shorten(f"failed: {event.error}", RESULT_CHARS)
    if isinstance(event, UserRejectObservation):
        return shorten(f"rejected: {event.rejection_reason}", RESULT_CHARS)
    if not isinstance(event, ObservationEvent) or event.tool_name in QUIET_RESULTS:
        return None
    observation = event.observation
    lines = [line for line in observation.text.splitlines() if line.strip()]
    parts: list[str] = []
    exit_code = getattr(observation, "exit_code", None)
    if getattr(observation, "timed_out", False):
        parts.append("still running")
    elif isinstance(exit_code, int):
        parts.append(f"exit {exit_code}")
    elif observation.is_error:
        parts.append("error")
    if isinstance(exit_code, int) or getattr(observation, "timed_out", False):
        parts.append(f"{len(lines)} line{'' if len(lines) == 1 else 's'}")
        last = lines[-1] if lines else ""
    else:
        last = lines[0] if lines else ""
    if last:
        parts.append(last.strip())
    return shorten(" · ".join(parts) or "done", RESULT_CHARS)


def _arguments(event: ActionEvent, workdir: Path | None) -> str:
    args: dict[str, Any] = event.action.model_dump(mode="json") if event.action is not None else {}
    if not args:
        try:
            parsed = json.loads(event.tool_call.arguments or "{}")
        except ValueError:
            parsed = {}
        args = parsed if isinstance(parsed, dict) else {}
    name = event.tool_name
    if name == "terminal":
        return str(args.get("command", ""))
    if name == "file_editor":
        return f"{args.get('command', '')} {_relative(str(args.get('path', '')), workdir)}"
    if name == "finish":
        return str(args.get("message", ""))
    if name == "think":
        return str(args.get("thought", ""))
    shown = {key: value for key, value in args.items() if value not in (None, "", [], {})}
    return json.dumps(shown, ensure_ascii=False)


def _relative(path: str, workdir: Path | None) -> str:
    if workdir is None or not path:
        return path
    try:
        return str(Path(path).relative_to(workdir))
    except ValueError:
        return path


def requirements_line(verdict: GoalVerdict | None) -> str | None:
    """ "N of M requirements proven", or None when the judge listed no requirements."""
    if verdict is None or not verdict.requirements:
        return None
    proven = sum(1 for req in verdict.requirements if req.satisfied)
    return f"{proven} of {len(verdict.requirements)} requirements proven"


def money(value: float) -> str:
    """A USD amount as the views show it."""
    return f"${value:.4f}"


def round_label(status: GoalStatus) -> str:
    """ "round N of M": the round being worked on (or the last one, once the goal ended)."""
    current = status.iteration + 1 if status.active else max(status.iteration, 1)
    return f"round {min(current, status.max_iterations)} of {status.max_iterations}"


def phase_line(status: GoalStatus) -> str | None:
    """What an active goal does now: the agent works, verify runs, the judge decides."""
    if not status.active or status.phase is None:
        return None
    if status.phase == "verifying":
        return f"verifying: {status.verify_command}..." if status.verify_command else "verifying..."
    if status.phase == "judging":
        return "judging..."
    if status.phase == "waiting_for_approval":
        return "waiting for approval"
    return "the agent works"


def verdict_line(status: GoalStatus) -> str | None:
    """The latest judged round in one line: verdict, score, what is missing, verify, cost."""
    row = status.last_round
    if row is None:
        return None
    parts = [
        f"round {row.iteration}: {'complete' if row.complete else 'not complete'}",
        f"score {row.score:.2f}",
    ]
    proven = requirements_line(status.verdict)
    if proven is not None:
        parts.append(proven)
    if row.verify_exit_code is not None:
        parts.append(f"verify exit {row.verify_exit_code}")
    if row.judge_error:
        parts.append(f"judge failed: {shorten(row.judge_error, MISSING_CHARS)}")
    if row.missing and not row.complete:
        parts.append(f"missing: {shorten(row.missing, MISSING_CHARS)}")
    parts.append(f"cost so far {money(status.cost)}")
    return " | ".join(parts)


def end_line(status: GoalStatus) -> str:
    """How the goal ended: one line, then the error in full on the next one (never cut: it
    is what the person must fix)."""
    rounds = f"{status.iteration} round{'s' if status.iteration != 1 else ''}"
    score = f", score {status.verdict.score:.2f}" if status.verdict is not None else ""
    why = f" ({shorten(status.reason, MISSING_CHARS)})" if status.reason else ""
    line = f"goal {status.status}{why} after {rounds}{score}, cost {money(status.cost)}"
    return f"{line}\nerror: {status.error}" if status.error else line


__all__ = [
    "THINKING",
    "describe_event",
    "describe_result",
    "describe_step",
    "end_line",
    "money",
    "phase_line",
    "requirements_line",
    "round_label",
    "shorten",
    "verdict_line",
]
