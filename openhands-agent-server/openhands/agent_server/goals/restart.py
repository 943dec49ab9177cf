"""What a server restart means for a goal: a status its dead driver left `running`.

No driver survives a restart, so a goal whose latest status says a driver was working on it
is recorded `interrupted` (reason "server restart") when its conversation is opened again,
and can be resumed. The registry uses the same rule to choose what to open at start-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openhands.sdk.conversation.goal import GoalStatus
from openhands.sdk.conversation.goal.models import SERVER_RESTART


def left_running(status: Mapping[str, Any] | None) -> bool:
    """Whether a recorded goal status (a status event's value) says a driver was working on it."""
    return status is not None and bool(status.get("active") or status.get("status") == "running")


def interrupted_by_restart(status: GoalStatus) -> GoalStatus | None:
    """The status recording that a restart cut the goal short, or None if it was not running."""
    if not left_running(status.model_dump(include={"active", "status"})):
        return None
    update = {"active": False, "status": "interrupted", "reason": SERVER_RESTART, "phase": None}
    return status.model_copy(update=update)
