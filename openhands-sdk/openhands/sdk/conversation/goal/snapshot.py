"""`GoalSnapshot`: everything a `GoalController` knows, as one model it can be rebuilt from.

A driver that hands a goal to another one (the agent server starting a Temporal workflow, a
future checkpoint) passes the snapshot; `GoalController.restore(snapshot)` continues exactly
where `controller.snapshot()` left off: same options, same progress, same pending steps.

They are pydantic dataclasses: validated when built or read (JSON, a workflow's input), and
cheap to update field by field, which the controller does a few times per step.
"""

from __future__ import annotations

from dataclasses import dataclass as stdlib_dataclass
from dataclasses import field as default

from openhands.sdk.conversation.goal.limits import GoalLimits
from openhands.sdk.conversation.goal.models import (
    GoalOutcome,
    GoalPhase,
    GoalRound,
    GoalVerdict,
    VerifyResult,
)
from openhands.sdk.conversation.goal.steps import DriverStep, Limit
from openhands.sdk.conversation.goal.transcript import DEFAULT_TRANSCRIPT_CHARS
from openhands.sdk.conversation.goal.verify import DEFAULT_TAIL_CHARS, DEFAULT_VERIFY_TIMEOUT
from pydantic import ConfigDict, Field, TypeAdapter
from pydantic.dataclasses import dataclass

MAX_JUDGE_FAILURES = 3
"""Judge failures in a row (errors or unparseable answers) that interrupt a goal."""


_CONFIG = ConfigDict(defer_build=True)


@stdlib_dataclass
class GoalRoundState:
    """The round under way: what its runs spent, what ended its run, what it still must send.

    A plain dataclass (the controller makes one per round); validated inside a snapshot.
    """

    started_at: float = 0.0
    """Seconds worked when the round began."""
    agent_cost: float = 0.0
    """USD the agent spent in this round."""
    limit: Limit | None = None
    """The limit its run was paused for."""
    message: str | None = None
    """The message its next run sends (held while an approval waits)."""
    verify: VerifyResult | None = None
    """This round's verify result."""


@dataclass(config=_CONFIG)
class GoalSnapshot:
    """A goal controller's whole state: options, progress, and the steps it has decided on."""

    # -- what the goal is (never changes) -----------------------------------------------------
    objective: str
    verify_command: str | None = None
    limits: GoalLimits = default(default_factory=GoalLimits)
    working_dir: str | None = Field(default=None, description="Where verify runs.")
    verify_timeout: float = Field(default=DEFAULT_VERIFY_TIMEOUT, gt=0)
    verify_tail_chars: int = Field(default=DEFAULT_TAIL_CHARS, ge=1)
    transcript_chars: int = Field(default=DEFAULT_TRANSCRIPT_CHARS, ge=200)
    max_judge_failures: int = Field(default=MAX_JUDGE_FAILURES, ge=1)

    # -- how far it got -----------------------------------------------------------------------
    iteration: int = Field(default=0, ge=0, description="Rounds judged.")
    agent_cost: float = Field(default=0.0, description="USD of the judged rounds' runs.")
    judge_cost: float = 0.0
    elapsed: float = Field(default=0.0, ge=0.0, description="Seconds worked (when taken).")
    judge_failures: int = 0
    verdict: GoalVerdict | None = None
    verify: VerifyResult | None = None
    last_round: GoalRound | None = None
    error: str | None = None
    reason: str | None = None
    phase: GoalPhase | None = None

    # -- the machine --------------------------------------------------------------------------
    began: bool = Field(default=False, description="True once a driver began working on it.")
    round: GoalRoundState | None = Field(default=None, description="The round under way.")
    queue: list[DriverStep] = default(default_factory=list)
    """Steps decided, the first one handed out."""
    outcome: GoalOutcome | None = Field(default=None, description="How it ended, once it did.")


SNAPSHOT = TypeAdapter(GoalSnapshot)
"""Reads and writes snapshots: `SNAPSHOT.validate_json(text)`, `SNAPSHOT.dump_json(snapshot)`."""
