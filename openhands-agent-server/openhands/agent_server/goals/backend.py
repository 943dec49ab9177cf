"""Where goal steps are interpreted: in this server (the built-in driver) or elsewhere (Temporal).

The server makes its backend once at start-up (`make_goal_backend(config)`: None for the
built-in driver), keeps it on the app (`app.state.goal_backend`) and hands it to every
conversation's driver through the registry. A backend starts a remote run from the
controller's snapshot (the goal's first status is already on disk), tells it when a step it
stopped waiting for has ended (it then asks for the result), and cancels it; the run sends every step to POST /goal/steps,
where this server performs it exactly as the built-in driver would.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from openhands.agent_server.config import ServerConfig
    from openhands.sdk.conversation.goal import GoalSnapshot


class GoalBackend(Protocol):
    """Starts remote runs of goals, answers their long steps, and cancels them."""

    @property
    def stop_wait(self) -> float:
        """Seconds a stop waits for the remote run to record the goal's end."""
        ...

    async def start(self, conversation_id: uuid.UUID, snapshot: GoalSnapshot, run: str) -> None:
        """Start the run `run` of the conversation's goal from `snapshot` (replacing any
        earlier run of it); it sends its steps with `run` as its token."""
        ...

    async def step_ended(self, conversation_id: uuid.UUID, step_id: str) -> None:
        """Tell the conversation's remote run that step `step_id` has ended: a step that
        outlasted its request's `wait` (POST /goal/steps answered null). The run then asks for
        its result, so the word carries none (whoever else can reach the run's backend can
        wake it early, never hand it a result)."""
        ...

    async def cancel(self, conversation_id: uuid.UUID) -> None:
        """End the conversation's goal run now, recording nothing (it is being abandoned)."""
        ...


def make_goal_backend(config: ServerConfig) -> GoalBackend | None:
    """The backend `config.goal_backend` names (None: the built-in driver). Made once, at
    start-up; the Temporal one connects on first use."""
    if config.goal_backend == "temporal":
        from openhands.agent_server.temporal.backend import TemporalGoalBackend

        return TemporalGoalBackend(config)
    return None
