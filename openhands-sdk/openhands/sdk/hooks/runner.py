"""Runs command hooks: event JSON on stdin; exit 0 allows, 2 blocks, anything else is logged."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openhands.sdk.hooks.config import HookConfig, HookDefinition, HookEventType
from openhands.sdk.workspace.shell import run_shell

logger = logging.getLogger(__name__)

BLOCK_EXIT_CODE = 2

HOOK_EVENT_NAMES = {
    HookEventType.STOP: "Stop",
    HookEventType.PRE_TOOL_USE: "PreToolUse",
    HookEventType.POST_TOOL_USE: "PostToolUse",
    HookEventType.USER_PROMPT_SUBMIT: "UserPromptSubmit",
}
"""The `hook_event_name` a hook reads on stdin (the names hook scripts already check)."""


@dataclass
class HookResult:
    """The combined answer of the hooks run for one event."""

    blocked: bool = False
    feedback: str = ""


class HookRunner:
    """Runs the hooks of a `HookConfig` in a working directory.

    Each hook gets `{"hook_event_name", "session_id", "cwd", ...payload}` as JSON on stdin,
    and runs with `env` as its whole environment (None: `agent_environment()`, this process's
    environment without its secrets, read when the hook runs).
    """

    def __init__(
        self,
        config: HookConfig | None,
        working_dir: str,
        *,
        session_id: str = "",
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.config = config or HookConfig()
        self.working_dir = working_dir
        self.session_id = session_id
        self.env = env

    def run(
        self, event: HookEventType, payload: dict[str, Any], *, tool_name: str | None = None
    ) -> HookResult:
        """Run every matching hook in order; stop at the first that blocks."""
        hooks = self.config.hooks_for(event, tool_name)
        if not hooks:
            return HookResult()
        stdin = json.dumps(
            {
                "hook_event_name": HOOK_EVENT_NAMES[event],
                "session_id": self.session_id,
                "cwd": self.working_dir,
                **payload,
            },
            default=str,
        )
        for hook in hooks:
            done = self._run_one(event, hook, stdin)
            if done is None:
                continue
            returncode, stdout, stderr = done
            if returncode == BLOCK_EXIT_CODE:
                feedback = (stderr.strip() or stdout.strip()) or "blocked by hook"
                return HookResult(blocked=True, feedback=feedback)
            if returncode != 0:
                logger.warning(
                    "%s hook exited %d (not blocking): %s: %s",
                    HOOK_EVENT_NAMES[event],
                    returncode,
                    hook.command,
                    stderr.strip()[:500],
                )
        return HookResult()

    def _run_one(
        self, event: HookEventType, hook: HookDefinition, stdin: str
    ) -> tuple[int, str, str] | None:
        """Run one hook; None when it timed out (non-blocking; one that cannot start exits 127)."""
        result = run_shell(
            hook.command,
            self.working_dir,
            timeout=hook.timeout,
            stdin=stdin,
            env=self.env,
            separate_stderr=True,
        )
        if result.timed_out:
            logger.error("%s hook timed out after %ss: %s", event.value, hook.timeout, hook.command)
            return None
        return result.exit_code, result.output, result.stderr
