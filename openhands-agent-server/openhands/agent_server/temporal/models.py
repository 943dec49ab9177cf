"""What the goal workflow and its activities exchange (JSON through Temporal's history).

No secret is ever here: workers take LLM keys from their own environment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TASK_QUEUE = "openhands-goals"


@dataclass
class ServerRef:
    """Which agent server and conversation a goal works on."""

    url: str
    conversation_id: str


@dataclass
class GoalInput:
    """The workflow's start: the goal status to start from and the judge's settings."""

    server: ServerRef
    status: dict[str, Any]
    judge: dict[str, Any]
    working_dir: str
    resume: bool = False


@dataclass
class RoundRun:
    """Send the round's message (once) and run the agent to the end of its run."""

    server: ServerRef
    message: str
    agent_usage_id: str = "agent"


@dataclass
class RoundEnd:
    """How the round's run ended and what the agent spent in it."""

    status: str
    error: str | None = None
    code: str | None = None
    agent_cost: float = 0.0


@dataclass
class JudgeRequest:
    """Ask the judge about the conversation so far."""

    server: ServerRef
    objective: str
    judge: dict[str, Any]
    verify: dict[str, Any] | None = None
    transcript_chars: int = 0


@dataclass
class JudgeResult:
    """The judge's verdict (GoalVerdict JSON), its cost, and an error if it failed."""

    verdict: dict[str, Any] = field(default_factory=dict)
    cost: float = 0.0
    error: str | None = None


@dataclass
class VerifyRequest:
    """Run the verify command in the conversation's workspace on its server."""

    server: ServerRef
    command: str
    working_dir: str
    timeout: float


@dataclass
class StatusRecord:
    """A goal status (GoalStatus JSON) to record on the agent server."""

    server: ServerRef
    status: dict[str, Any]
