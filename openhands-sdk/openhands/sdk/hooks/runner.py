"""Runs command hooks: event JSON on stdin; exit 0 allows, 2 blocks, anything else is logged."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
from dataclasses import dataclass
from typing import Any

from openhands.sdk.hooks.config import HookConfig, HookDefinition, HookEventType

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

    Each hook gets `{"hook_event_name", "session_id", "cwd", ...payload}` as JSON on stdin.
    """

    def __init__(
        self, config: HookConfig | None, working_dir: str, *, session_id: str = ""
    ) -> None:
        self.config = config or HookConfig()
        self.working_dir = working_dir
        self.session_id = session_id

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
        """Run one hook; None when it could not start or timed out (both are non-blocking)."""
        try:
            process = subprocess.Popen(
                ["bash", "-c", hook.command],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                # A hook may print any bytes; strict decoding would crash the agent's run.
                encoding="utf-8",
                errors="replace",
                cwd=self.working_dir,
                start_new_session=True,  # so a timeout kills the hook's children too
            )
        except OSError as exc:
            logger.error("%s hook could not start (%s): %s", event.value, exc, hook.command)
            return None
        try:
            stdout, stderr = process.communicate(stdin, timeout=hook.timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            process.communicate()
            logger.error("%s hook timed out after %ss: %s", event.value, hook.timeout, hook.command)
            return None
        return process.returncode, stdout, stderr


def _kill_group(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
