"""`HookRunner`: runs a conversation's hooks for one lifecycle event and combines their answers.

Each hook gets the event as JSON; hooks run in order and stop at the first that blocks. Every
run is recorded as a `HookExecutionEvent` when the runner has an `on_event` callback.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from openhands.sdk.event.hook_execution import HookExecutionEvent, clip_hook_log
from openhands.sdk.hooks.config import HookConfig, HookDefinition, HookType
from openhands.sdk.hooks.types import BLOCK_EXIT_CODE, HookEventType
from openhands.sdk.workspace.shell import TIMEOUT_EXIT_CODE

if TYPE_CHECKING:
    from openhands.sdk.event.base import Event
    from openhands.sdk.hooks.agent_hook import HookAgent, LLMSource, UsageLedger
    from openhands.sdk.hooks.executor import HookResult

logger = logging.getLogger(__name__)

__all__ = ["BLOCK_EXIT_CODE", "HOOK_EVENT_NAMES", "HookOutcome", "HookRunner"]

HOOK_EVENT_NAMES = {event: event.value for event in HookEventType}
"""The `hook_event_name` a hook reads on stdin, per event type ("Stop", "PreToolUse", ...)."""

_CANNOT_BLOCK = (
    HookEventType.POST_TOOL_USE,
    HookEventType.SESSION_START,
    HookEventType.SESSION_END,
)
"""Events whose hooks all run: a block there is only logged (the thing already happened)."""


class HookOutcome:
    """What the hooks run for one event decided together.

    `feedback` says why it was blocked (the blocking hook's reason and added context, else its
    stderr or stdout); `additional_context` joins the context every hook added (for
    UserPromptSubmit it is appended to the user's message).
    """

    # A plain class: a dataclass costs ~1 ms of import time.
    __slots__ = ("additional_context", "blocked", "feedback", "results")

    def __init__(
        self,
        blocked: bool = False,
        feedback: str = "",
        additional_context: str = "",
        results: list[HookResult] | None = None,
    ) -> None:
        self.blocked = blocked
        self.feedback = feedback
        self.additional_context = additional_context
        self.results: list[HookResult] = results if results is not None else []

    def __repr__(self) -> str:
        return f"HookOutcome(blocked={self.blocked!r}, feedback={self.feedback!r})"


class HookRunner:
    """Runs the hooks of a `HookConfig` for one conversation.

    Command hooks run in `working_dir` through `run_shell`, with `env` as their whole
    environment (None: `agent_environment()`, this process's environment without its secrets)
    plus the OPENHANDS_* variables. Prompt and agent hooks use a copy of `llm_source()`, and
    count its cost in `stats`; an agent hook's sub-conversation runs through `hook_agent`. `on_event` gets a `HookExecutionEvent` per hook run.
    """

    def __init__(
        self,
        config: HookConfig | None,
        working_dir: str,
        *,
        session_id: str = "",
        env: Mapping[str, str] | None = None,
        on_event: Callable[[Event], object] | None = None,
        llm_source: LLMSource | None = None,
        stats: UsageLedger | None = None,
        hook_agent: HookAgent | None = None,
    ) -> None:
        self.config = config or HookConfig()
        self.working_dir = working_dir
        self.session_id = session_id
        self.env = env
        self.on_event = on_event
        self.llm_source = llm_source
        self.stats = stats
        self.hook_agent = hook_agent

    def has_hooks(self, event: HookEventType, tool_name: str | None = None) -> bool:
        """Whether any hook would run for `event` (and `tool_name`)."""
        return bool(self.config.hooks_for(event, tool_name))

    def run(
        self,
        event: HookEventType,
        payload: dict[str, Any],
        *,
        tool_name: str | None = None,
        action_id: str | None = None,
        message_id: str | None = None,
    ) -> HookOutcome:
        """Run every matching hook in order; stop at the first that blocks.

        `payload` joins the JSON each hook reads (`tool_name`, `tool_input`, `prompt`, ...);
        `action_id` / `message_id` are recorded on the events.
        """
        hooks = self.config.hooks_for(event, tool_name)
        if not hooks:
            return HookOutcome()
        # Imported on the first hook run: a conversation without hooks never needs it.
        from openhands.sdk.hooks.executor import block_feedback

        hook_input = {
            "hook_event_name": event.value,
            "event_type": event.value,
            "session_id": self.session_id,
            "cwd": self.working_dir,
            "working_dir": self.working_dir,
            **payload,
        }
        stdin = json.dumps(hook_input, default=str)
        outcome = HookOutcome()
        contexts: list[str] = []
        for hook in hooks:
            result = self._run_one(event, hook, stdin, hook_input, tool_name)
            outcome.results.append(result)
            self._record(event, hook, result, hook_input, tool_name, action_id, message_id)
            if result.additional_context and result.additional_context.strip():
                contexts.append(result.additional_context.strip())
            if result.error:
                # A hook that hangs is worth an error; one that exits oddly only a warning.
                level = logging.ERROR if result.exit_code == TIMEOUT_EXIT_CODE else logging.WARNING
                logger.log(level, "%s hook %s: %s", event.value, hook.display_command, result.error)
            if result.should_continue:
                continue
            if event in _CANNOT_BLOCK:
                logger.warning(
                    "%s hook %s asked to block, which this event cannot do",
                    event.value,
                    hook.display_command,
                )
                continue
            outcome.blocked = True
            outcome.feedback = block_feedback(result)
            break
        outcome.additional_context = "\n".join(contexts)
        return outcome

    def _run_one(
        self,
        event: HookEventType,
        hook: HookDefinition,
        stdin: str,
        hook_input: dict[str, Any],
        tool_name: str | None,
    ) -> HookResult:
        if hook.type != HookType.COMMAND:
            from openhands.sdk.hooks.agent_hook import run_llm_hook  # only LLM hooks need it

            return run_llm_hook(
                hook,
                event.value,
                hook_input,
                llm_source=self.llm_source,
                working_dir=self.working_dir,
                stats=self.stats,
                hook_agent=self.hook_agent,
            )
        from openhands.sdk.hooks.executor import hook_environment, run_command_hook

        env = hook_environment(
            self.env,
            working_dir=self.working_dir,
            session_id=self.session_id,
            event_name=event.value,
            tool_name=tool_name,
        )
        return run_command_hook(hook, stdin, self.working_dir, env)

    def _record(
        self,
        event: HookEventType,
        hook: HookDefinition,
        result: HookResult,
        hook_input: dict[str, Any],
        tool_name: str | None,
        action_id: str | None,
        message_id: str | None,
    ) -> None:
        if self.on_event is None:
            return
        self.on_event(
            HookExecutionEvent(
                hook_event_type=event.value,
                hook_command=hook.display_command,
                tool_name=tool_name,
                success=result.success,
                blocked=not result.should_continue,
                exit_code=result.exit_code,
                stdout=clip_hook_log(result.stdout) or "",
                stderr=clip_hook_log(result.stderr) or "",
                reason=clip_hook_log(result.reason),
                additional_context=clip_hook_log(result.additional_context),
                error=clip_hook_log(result.error),
                action_id=action_id,
                message_id=message_id,
                hook_input=_recordable(event, hook_input),
            )
        )


def _recordable(event: HookEventType, hook_input: dict[str, Any]) -> dict[str, Any]:
    """What of a hook's input goes into the log: a user prompt stays out (a refused prompt
    must not be stored; an accepted one is the MessageEvent named by `message_id`)."""
    if event != HookEventType.USER_PROMPT_SUBMIT:
        return hook_input
    return {key: value for key, value in hook_input.items() if key not in ("prompt", "message")}
