"""Where goal steps are interpreted: in this server (the built-in driver) or elsewhere (Temporal).

`configure_goal_backend(config)` is called once at start-up; `goal_backend()` is None for the
built-in driver. A backend starts a remote run from the controller's snapshot (the goal's first
status is already on disk) and cancels it; the run sends every step to POST /goal/steps, where
this server performs it exactly as the built-in driver would.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from openhands.agent_server.config import ServerConfig
    from openhands.sdk.conversation.goal import GoalSnapshot


class GoalBackend(Protocol):
    """Starts remote runs of goals and cancels them."""

    @property
    def stop_wait(self) -> float:
        """Seconds a stop waits for the remote run to record the goal's end."""
        ...

    async def start(self, conversation_id: uuid.UUID, snapshot: GoalSnapshot, run: str) -> None:
        """Start the run `run` of the conversation's goal from `snapshot` (replacing any
        earlier run of it); it sends its steps with `run` as its token."""
        ...

    async def cancel(self, conversation_id: uuid.UUID) -> None:
        """End the conversation's goal run now, recording nothing (it is being abandoned)."""
        ...


_backend: GoalBackend | None = None


def configure_goal_backend(config: ServerConfig) -> None:
    """Choose the backend from `config.goal_backend` (once, at start-up)."""
    global _backend
    if config.goal_backend == "temporal":
        from openhands.agent_server.temporal.backend import TemporalGoalBackend

        _backend = TemporalGoalBackend(config)
    else:
        _backend = None


def goal_backend() -> GoalBackend | None:
    """The configured remote backend, or None for the built-in driver."""
    return _backend
