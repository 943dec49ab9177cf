"""Where goal loops run: in this server (the built-in driver) or elsewhere (Temporal).

`configure_goal_backend(config)` is called once at start-up; `goal_backend()` is None for the
built-in driver. A backend starts and cancels remote goal runs; whatever runs them records each
status through POST /goal/status, so GET /goal, the chip and the WebSocket work the same.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from openhands.agent_server.config import ServerConfig
    from openhands.sdk.conversation.goal import GoalStatus
    from openhands.sdk.llm import LLM


class GoalBackend(Protocol):
    """Starts goal runs outside this process and stops them."""

    async def start(
        self,
        conversation_id: uuid.UUID,
        status: GoalStatus,
        judge: LLM,
        working_dir: str,
        *,
        resume: bool,
    ) -> str:
        """Start the goal from `status` (already on disk); return the run's id."""
        ...

    def run_id(self, conversation_id: uuid.UUID) -> str:
        """The id of the conversation's goal run (to stop it after a server restart)."""
        ...

    async def cancel(self, run_id: str) -> None:
        """Ask the run to stop; it records the goal `interrupted`."""
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
