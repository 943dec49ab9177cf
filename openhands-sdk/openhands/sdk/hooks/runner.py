"""Runs command hooks: event JSON on stdin; exit 0 allows, 2 blocks, anything else is logged."""

from __future__ import annotations

import json
import logging
import subprocess
from dataclasses import dataclass
from typing import Any

from openhands.sdk.hooks.config import HookConfig, HookEventType

logger = logging.getLogger(__name__)

BLOCK_EXIT_CODE = 2


@dataclass
class HookResult:
    """The combined answer of the hooks run for one event."""

    blocked: bool = False
    feedback: str = ""


class HookRunner:
    """Runs the hooks of a `HookConfig` in a working directory."""

    def __init__(self, config: HookConfig | None, working_dir: str) -> None:
        self.config = config or HookConfig()
        self.working_dir = working_dir

    def run(
        self, event: HookEventType, payload: dict[str, Any], *, tool_name: str | None = None
    ) -> HookResult:
        """Run every matching hook in order; stop at the first that blocks."""
        hooks = self.config.hooks_for(event, tool_name)
        if not hooks:
            return HookResult()
        stdin = json.dumps({"hook_event_name": event.value, **payload}, default=str)
        for hook in hooks:
            try:
                done = subprocess.run(
                    ["bash", "-c", hook.command],
                    input=stdin,
                    capture_output=True,
                    text=True,
                    cwd=self.working_dir,
                    timeout=hook.timeout,
                )
            except subprocess.TimeoutExpired:
                logger.error(
                    "%s hook timed out after %ss: %s", event.value, hook.timeout, hook.command
                )
                continue
            except OSError as exc:
                logger.error("%s hook could not start (%s): %s", event.value, exc, hook.command)
                continue
            if done.returncode == BLOCK_EXIT_CODE:
                feedback = (done.stderr.strip() or done.stdout.strip()) or "blocked by hook"
                return HookResult(blocked=True, feedback=feedback)
            if done.returncode != 0:
                logger.warning(
                    "%s hook exited %d (not blocking): %s: %s",
                    event.value,
                    done.returncode,
                    hook.command,
                    done.stderr.strip()[:500],
                )
        return HookResult()
