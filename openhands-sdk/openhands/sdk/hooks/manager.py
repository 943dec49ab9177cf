"""`HookManager`: run a `HookConfig`'s hooks outside a conversation, one event at a time.

The reference SDK's entry point for hooks: a script (or a UI checking a policy) asks "may
this tool call go on?" and gets the decision plus every hook's result. Prompt hooks ask
`llm` (a copy counted in `conversation_stats`); command hooks run in `working_dir`; agent
hooks run through `hook_agent` (`hook_agent_for(LocalConversation)` from
`openhands.sdk.conversation.hook_agent`; without one they allow, and say why). Inside a
conversation the same rules run through `HookRunner`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.hooks.runner import HookRunner
from openhands.sdk.hooks.types import HookEventType

if TYPE_CHECKING:
    from openhands.sdk.event.base import Event
    from openhands.sdk.hooks.agent_hook import HookAgent, UsageLedger
    from openhands.sdk.hooks.executor import HookResult
    from openhands.sdk.llm.llm import LLM

__all__ = ["HookManager"]


class HookManager:
    """Runs the hooks of `config` (None: the hooks.json of `working_dir` or the home folder)."""

    def __init__(
        self,
        config: HookConfig | None = None,
        working_dir: str | None = None,
        session_id: str | None = None,
        llm: LLM | None = None,
        llm_getter: Callable[[], LLM | None] | None = None,
        conversation_stats: UsageLedger | None = None,
        on_event: Callable[[Event], object] | None = None,
        hook_agent: HookAgent | None = None,
    ) -> None:
        folder = working_dir or str(Path.cwd())
        self.config = config if config is not None else HookConfig.load(working_dir=folder)
        self.working_dir = folder
        self.session_id = session_id or ""
        getter = llm_getter if llm_getter is not None else (lambda: llm)
        self._runner = HookRunner(
            self.config,
            folder,
            session_id=self.session_id,
            on_event=on_event,
            llm_source=getter,
            stats=conversation_stats,
            hook_agent=hook_agent,
        )

    def run_pre_tool_use(
        self, tool_name: str, tool_input: dict[str, Any]
    ) -> tuple[bool, list[HookResult]]:
        """(whether the call may go on, each hook's result) before `tool_name` runs."""
        outcome = self._runner.run(
            HookEventType.PRE_TOOL_USE,
            {"tool_name": tool_name, "tool_input": tool_input},
            tool_name=tool_name,
        )
        return not outcome.blocked, outcome.results

    def run_post_tool_use(
        self, tool_name: str, tool_input: dict[str, Any], tool_response: Any
    ) -> list[HookResult]:
        """Each hook's result after `tool_name` ran (these hooks cannot block)."""
        outcome = self._runner.run(
            HookEventType.POST_TOOL_USE,
            {"tool_name": tool_name, "tool_input": tool_input, "tool_response": tool_response},
            tool_name=tool_name,
        )
        return outcome.results

    def run_user_prompt_submit(self, message: str) -> tuple[bool, str | None, list[HookResult]]:
        """(whether the message may be sent, context the hooks add or None, results)."""
        outcome = self._runner.run(
            HookEventType.USER_PROMPT_SUBMIT, {"prompt": message, "message": message}
        )
        return not outcome.blocked, outcome.additional_context or None, outcome.results

    def run_session_start(self) -> list[HookResult]:
        """Each SessionStart hook's result."""
        return self._runner.run(HookEventType.SESSION_START, {}).results

    def run_session_end(self) -> list[HookResult]:
        """Each SessionEnd hook's result."""
        return self._runner.run(HookEventType.SESSION_END, {}).results

    def run_stop(self, reason: str | None = None) -> tuple[bool, list[HookResult]]:
        """(whether the agent may stop, results); a blocking Stop hook keeps it working."""
        payload = {"reason": reason} if reason else {}
        outcome = self._runner.run(HookEventType.STOP, payload)
        return not outcome.blocked, outcome.results

    def has_hooks(self, event_type: HookEventType) -> bool:
        """Whether any hook is configured for `event_type`."""
        return self.config.has_hooks_for_event(event_type)

    def get_blocking_reason(self, results: list[HookResult]) -> str | None:
        """Why the first blocking result blocked (its reason, else its stderr), or None."""
        for result in results:
            if not result.should_continue:
                return result.reason or result.stderr.strip() or "Blocked by hook"
        return None

    def cleanup_async_processes(self) -> None:
        """Kept for reference-SDK scripts: async command hooks are detached and need none."""
