"""Runs one command hook and reads its answer: the exit code, and JSON on stdout.

Exit 0 allows, exit 2 blocks, any other code is a non-blocking error. Stdout that is a JSON
object may also say `{"decision": "allow"|"deny", "reason": ..., "additionalContext": ...,
"continue": false}`: "deny" or `continue: false` block even with exit 0.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from typing import Any

from openhands.sdk.hooks.config import HookDefinition
from openhands.sdk.hooks.types import BLOCK_EXIT_CODE, HookDecision
from openhands.sdk.workspace.agent_env import agent_environment
from openhands.sdk.workspace.shell import run_shell
from pydantic import BaseModel, ConfigDict

logger = logging.getLogger(__name__)


class HookResult(BaseModel):
    """What one hook run answered.

    `success` means the hook ran and gave a deliberate answer; an LLM hook that could not
    decide allows with `success=False` and `error` set (it fails open).
    """

    model_config = ConfigDict(defer_build=True)

    success: bool = True
    blocked: bool = False
    exit_code: int = 0
    stdout: str = ""
    stderr: str = ""
    decision: HookDecision | None = None
    reason: str | None = None
    additional_context: str | None = None
    error: str | None = None
    async_started: bool = False

    @property
    def should_continue(self) -> bool:
        """Whether the operation may go on after this hook."""
        return not self.blocked and self.decision != HookDecision.DENY


def hook_environment(
    env: Mapping[str, str] | None,
    *,
    working_dir: str,
    session_id: str,
    event_name: str,
    tool_name: str | None,
) -> dict[str, str]:
    """The environment a command hook runs with: `env` (None: the agent's environment) plus
    OPENHANDS_PROJECT_DIR, OPENHANDS_SESSION_ID, OPENHANDS_EVENT_TYPE and, for tool events,
    OPENHANDS_TOOL_NAME."""
    environment = dict(agent_environment() if env is None else env)
    environment["OPENHANDS_PROJECT_DIR"] = working_dir
    environment["OPENHANDS_SESSION_ID"] = session_id
    environment["OPENHANDS_EVENT_TYPE"] = event_name
    if tool_name:
        environment["OPENHANDS_TOOL_NAME"] = tool_name
    return environment


def run_command_hook(
    hook: HookDefinition, stdin: str, working_dir: str, env: Mapping[str, str]
) -> HookResult:
    """Run `hook.command` with `stdin` in `working_dir`; never raises for a failing hook.

    An `async` hook is started in the background and answers at once (it cannot block); it is
    still killed at its timeout.
    """
    if hook.async_:
        thread = threading.Thread(
            target=run_shell,
            args=(hook.command, working_dir),
            kwargs={"timeout": hook.timeout, "stdin": stdin, "env": env, "separate_stderr": True},
            name="async-hook",
            daemon=True,
        )
        thread.start()
        return HookResult(async_started=True)
    done = run_shell(
        hook.command,
        working_dir,
        timeout=hook.timeout,
        stdin=stdin,
        env=env,
        separate_stderr=True,
    )
    if done.timed_out:
        return HookResult(
            success=False,
            exit_code=done.exit_code,
            stdout=done.output,
            stderr=done.stderr,
            error=f"Hook timed out after {hook.timeout:g} s (killed; not blocking)",
        )
    result = HookResult(
        success=done.exit_code == 0,
        blocked=done.exit_code == BLOCK_EXIT_CODE,
        exit_code=done.exit_code,
        stdout=done.output,
        stderr=done.stderr,
    )
    _apply_json_answer(result, done.output)
    if done.exit_code not in (0, BLOCK_EXIT_CODE):
        said = done.stderr.strip()[:500]
        result.error = f"exited {done.exit_code} (not blocking)" + (f": {said}" if said else "")
    return result


def _apply_json_answer(result: HookResult, stdout: str) -> None:
    """Fold a JSON object printed on stdout into `result` (other output is left as text)."""
    text = stdout.strip()
    if not text.startswith("{"):
        return
    try:
        answer: Any = json.loads(text)
    except ValueError:
        return
    if not isinstance(answer, dict):
        return
    decision = str(answer.get("decision", "")).lower()
    if decision == HookDecision.ALLOW:
        result.decision = HookDecision.ALLOW
    elif decision == HookDecision.DENY:
        result.decision = HookDecision.DENY
        result.blocked = True
    if answer.get("reason") is not None:
        result.reason = str(answer["reason"])
    if answer.get("additionalContext") is not None:
        result.additional_context = str(answer["additionalContext"])
    if answer.get("continue") is False:
        result.blocked = True


def block_feedback(result: HookResult) -> str:
    """What the agent or user is told when `result` blocked: the hook's reason and added
    context, else its stderr, else its plain stdout."""
    said = [part for part in (result.reason, result.additional_context) if part and part.strip()]
    if said:
        return "\n".join(dict.fromkeys(part.strip() for part in said))
    if result.stderr.strip():
        return result.stderr.strip()
    if result.stdout.strip() and not result.stdout.strip().startswith("{"):
        return result.stdout.strip()
    return "blocked by hook"
