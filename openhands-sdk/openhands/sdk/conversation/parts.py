"""`ConversationParts`: a `LocalConversation`'s collaborators and the calls they carry out.

`LocalConversation` (in `local`) builds on this class. `_take_parts` makes its collaborators
when it is set up, each owning one concern (see `conversation.core`): `RunLoop` (run, pause,
interrupt), `Approvals`, `ClientCalls`, `Branching` (fork, navigate_to), `Checkpointing`,
`LLMSwitching`, `PluginLoading` and `SideLLMs` (ask_agent, generate_title). Every public call here is a
hand-over to one of them; how each behaves is documented on the collaborator's method. The
collaborators see the conversation through `_Core`, the one object that reads it for them.
"""

from __future__ import annotations

import uuid
from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from openhands.sdk.conversation.approvals import DEFAULT_REJECTION_REASON, Approvals
from openhands.sdk.conversation.ask import ASK_AGENT_USAGE_ID, answer_question
from openhands.sdk.conversation.base import BaseConversation
from openhands.sdk.conversation.branching import Branching
from openhands.sdk.conversation.checkpointing import Checkpointing
from openhands.sdk.conversation.client_calls import ClientCalls
from openhands.sdk.conversation.core import require_open
from openhands.sdk.conversation.llm_switch import LLMSwitching
from openhands.sdk.conversation.plugin_loading import PluginLoading
from openhands.sdk.conversation.run_loop import RunLoop, Step
from openhands.sdk.conversation.side_llms import SideLLMs
from openhands.sdk.conversation.state import ConversationExecutionStatus as Status
from openhands.sdk.conversation.title_utils import TITLE_USAGE_ID, generate_conversation_title
from openhands.sdk.errors import InvalidArgumentError

if TYPE_CHECKING:
    from openhands.sdk.agent.agent import AgentBase
    from openhands.sdk.contracts import ProfileSource
    from openhands.sdk.conversation.recording import Recorder
    from openhands.sdk.conversation.state import ConversationState
    from openhands.sdk.conversation.stuck import StuckDetector
    from openhands.sdk.event.action import ActionEvent
    from openhands.sdk.event.base import Event
    from openhands.sdk.hooks.runner import HookRunner
    from openhands.sdk.llm.llm import LLM
    from openhands.sdk.llm.message import ImageContent, TextContent
    from openhands.sdk.plugin.types import PluginSource, ResolvedPluginSource
    from openhands.sdk.security.analyzer import SecurityAnalyzerBase
    from openhands.sdk.security.approval_rules import AllowRule
    from openhands.sdk.security.confirmation_policy import ConfirmationPolicyBase
    from openhands.sdk.tool.tool import ToolDefinition
    from openhands.sdk.workspace.checkpoints import (
        Checkpoint,
        CheckpointDiff,
        CheckpointSettings,
        CheckpointStore,
        RewindResult,
    )

__all__ = ["ConversationParts"]

Fork = TypeVar("Fork")
"""The conversation a fork opens as (`LocalConversation`)."""


class ConversationParts(BaseConversation, Generic[Fork]):
    """The collaborators of a local conversation and the public calls they carry out."""

    tools: dict[str, ToolDefinition]
    """The conversation's tools by name (made by the conversation before `_take_parts`)."""
    resolved_plugins: list[ResolvedPluginSource] | None
    """The plugins loaded into it, pinned to what loaded (or None)."""

    @property
    @abstractmethod
    def is_closed(self) -> bool:
        """True once `close()` was called."""

    def _take_parts(
        self,
        state: ConversationState,
        recorder: Recorder,
        *,
        step: Step,
        hooks: HookRunner,
        stuck: StuckDetector,
        open_fork: Callable[[ConversationState], Fork],
        on_plugin_loaded: Callable[[dict[str, ToolDefinition]], None],
    ) -> None:
        """Make the collaborators (once, when the conversation is set up): they see this
        conversation (around `state`) through a `ConversationCore` and write to its log
        through `recorder`."""
        self._core = core = _Core(self, state, recorder)
        self._side_llms = SideLLMs(lambda: state.agent.llm, state.stats)
        self._approvals = Approvals(core)
        self._client_calls = ClientCalls(core)
        self._branching = Branching(core, open_fork)
        self._checkpointing = Checkpointing(core)
        self._llm_switching = LLMSwitching(core)
        self._plugins = PluginLoading(core, on_plugin_loaded)
        self._runs = RunLoop(
            core,
            step=step,
            hooks=hooks,
            stuck=stuck,
            approvals=self._approvals,
            client_calls=self._client_calls,
        )

    def _check_open(self) -> None:
        require_open(self._core)

    # -- side questions (`SideLLMs`) and usage ----------------------------------------------------

    def ask_agent(self, question: str) -> str:
        """Ask the agent's LLM a question about the conversation so far; return its answer.

        One completion on the current LLM context plus the question, without tools being
        run: it records no event, changes no status and is not remembered. Safe while
        `run()` is going in another thread. Its cost is counted under usage_id
        `ask-agent-llm`. Raises `ConversationError` if the LLM answers no text.
        """
        if not isinstance(question, str) or not question.strip():
            raise InvalidArgumentError(
                "question must be a non-blank string: say what to ask the agent"
            )
        self._check_open()
        return answer_question(
            self._core.state.llm_messages(),
            self._side_llms.get(ASK_AGENT_USAGE_ID),
            self.tool_schemas,
            question,
        )

    def generate_title(self, llm: LLM | None = None, max_length: int = 50) -> str:
        """A short title for this conversation, from its first user message.

        Uses `llm`, or a copy of the agent's LLM counted under usage_id `title-generation`;
        if the LLM fails, the first message cut to `max_length`. Does not change
        `state.title`. Raises ValueError if there is no user message yet.
        """
        return generate_conversation_title(
            self._core.state.active_branch(), llm or self._side_llms.get(TITLE_USAGE_ID), max_length
        )

    def record_stats(self) -> None:
        """Append the LLM usage as a `stats` update if it changed since the last one.

        Every run does this when it ends; call it after using a registered LLM outside a run
        (the goal runner does, after its last judge call), so the usage is on disk.
        """
        self._core.record_stats()

    # -- runs (`RunLoop`) --------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        """True while `run()` is executing in some thread (`RunLoop.is_running`)."""
        return self._runs.is_running

    def run(self) -> None:
        """Run the agent until it finishes, pauses, errors, gets stuck or hits the step cap
        (`RunLoop.run`)."""
        self._runs.run()

    async def arun(self) -> None:
        """`run()` for asyncio code: the run goes on in a worker thread, the loop stays free.

        Callbacks run in that worker thread (wrap async ones in `AsyncCallbackWrapper`).
        `interrupt()` ends it early; cancelling the awaiting task interrupts the run too
        (the cancellation then propagates as usual). Raises what `run()` raises.
        """
        import asyncio  # not at import time: it costs ~20 ms

        self._check_open()
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(None, self.run)
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            self.interrupt()
            raise

    def interrupt(self) -> None:
        """Stop a run now, not after its step (`RunLoop.interrupt`)."""
        self._runs.interrupt()

    def pause(self) -> None:
        """Stop after the current step, or mark an idle conversation paused (`RunLoop.pause`)."""
        self._runs.pause()

    # -- approvals (`Approvals`) ---------------------------------------------------------------

    @property
    def tool_schemas(self) -> list[dict[str, object]]:
        """The tools as the LLM is shown them (`Approvals.tool_schemas`: with a
        `security_risk` to state while an LLM security analyzer is set)."""
        return self._approvals.tool_schemas

    def set_confirmation_policy(self, policy: ConfirmationPolicyBase) -> None:
        """Choose which tool calls wait for approval (`Approvals.set_confirmation_policy`)."""
        self._approvals.set_confirmation_policy(policy)

    def set_security_analyzer(self, analyzer: SecurityAnalyzerBase | None) -> None:
        """Choose what rates each call's risk (`Approvals.set_security_analyzer`)."""
        self._approvals.set_security_analyzer(analyzer)

    @property
    def approval_rules(self) -> list[AllowRule]:
        """The standing approvals of this conversation (see `add_approval_rule`)."""
        return self._approvals.rules

    def add_approval_rule(self, rule: AllowRule) -> None:
        """Let the calls `rule` matches run without asking (`Approvals.add_rule`)."""
        self._approvals.add_rule(rule)

    def set_approval_rules(self, rules: Iterable[AllowRule]) -> None:
        """Replace the standing approvals with `rules`, saved once (`Approvals.set_rules`)."""
        self._approvals.set_rules(rules)

    def remove_approval_rule(self, rule: AllowRule) -> None:
        """Ask again for the calls `rule` matched (`Approvals.remove_rule`)."""
        self._approvals.remove_rule(rule)

    def approve_pending_actions(self) -> None:
        """Approve the waiting calls; the next `run()` runs them first (`Approvals.approve`)."""
        self._approvals.approve()

    def reject_pending_actions(self, reason: str = DEFAULT_REJECTION_REASON) -> None:
        """Reject the waiting calls; the agent reads `reason` (`Approvals.reject`)."""
        self._approvals.reject(reason)

    def take_approved_actions(self) -> list[ActionEvent]:
        """The approved calls to run now (once), or [] (`Approvals.take_approved`)."""
        return self._approvals.take_approved()

    def needs_approval(self, actions: list[ActionEvent]) -> bool:
        """Whether this reply's `actions` must wait for approval."""
        return self._approvals.needs_approval(actions)

    def rated(self, action: ActionEvent) -> ActionEvent:
        """`action` with the security analyzer's rating (`Approvals.rated`)."""
        return self._approvals.rated(action)

    def wait_for_approval(self) -> None:
        """End the run after this step in `waiting_for_confirmation`."""
        self._runs.end_after_step(Status.WAITING_FOR_CONFIRMATION)

    # -- client tool calls (`ClientCalls`) -------------------------------------------------------

    @property
    def pending_client_calls(self) -> list[ActionEvent]:
        """The calls of client tools that wait for the client's answer, oldest first."""
        return self._client_calls.pending

    def respond_to_client_tool(
        self,
        tool_call_id: str,
        result: str | Sequence[TextContent | ImageContent],
        *,
        is_error: bool = False,
        run: bool = False,
    ) -> None:
        """Answer a waiting client tool call: `result` becomes its observation.

        With `run=True` the run goes on at once (in this thread); else the next `run()`
        does. Raises ValueError when no call of that id waits for the client.
        """
        self._client_calls.respond(tool_call_id, result, is_error=is_error)
        if run:
            self.run()

    def wait_for_client(self) -> None:
        """End the run after this step (`paused`): a client tool call waits for its answer."""
        self._runs.end_after_step(Status.PAUSED)

    # -- fork and HEAD (`Branching`) -------------------------------------------------------------

    def fork(
        self,
        *,
        conversation_id: uuid.UUID | str | None = None,
        agent: AgentBase | None = None,
        title: str | None = None,
        tags: dict[str, str] | None = None,
        reset_metrics: bool = True,
        from_event_id: str | None = None,
    ) -> Fork:
        """A new, idle conversation with a copy of this one's history, or of the branch up to
        `from_event_id` (`Branching.fork`)."""
        return self._branching.fork(
            conversation_id=conversation_id,
            agent=agent,
            title=title,
            tags=tags,
            reset_metrics=reset_metrics,
            from_event_id=from_event_id,
        )

    def navigate_to(self, event_id: str | None) -> None:
        """Move the HEAD: the next event follows `event_id` (`Branching.navigate_to`)."""
        self._branching.navigate_to(event_id)

    # -- checkpoints (`Checkpointing`) ------------------------------------------------------------

    @property
    def checkpoint_settings(self) -> CheckpointSettings | None:
        """Limits of the checkpoints (None: `CheckpointSettings.from_env()` at first use)."""
        return self._checkpointing.settings

    @checkpoint_settings.setter
    def checkpoint_settings(self, settings: CheckpointSettings | None) -> None:
        self._checkpointing.settings = settings

    @property
    def checkpoint_store(self) -> CheckpointStore:
        """The conversation's checkpoint store (`Checkpointing.store`)."""
        return self._checkpointing.store

    def checkpoint(self, label: str, *, goal_round: int | None = None) -> Checkpoint:
        """Snapshot the workspace now and record it (`Checkpointing.checkpoint`)."""
        return self._checkpointing.checkpoint(label, goal_round=goal_round)

    def list_checkpoints(self) -> list[Checkpoint]:
        """The workspace's checkpoints, oldest first ([] when none was taken)."""
        return self._checkpointing.list_all()

    def checkpoint_diff(self, target: str, base: str | None = None) -> CheckpointDiff:
        """The changes from `base` (default: the checkpoint before `target`) to `target`."""
        return self._checkpointing.diff(target, base)

    def rewind(self, checkpoint_id: str) -> RewindResult:
        """Restore the workspace to a checkpoint and record it (`Checkpointing.rewind`)."""
        return self._checkpointing.rewind(checkpoint_id)

    # -- the model (`LLMSwitching`) ---------------------------------------------------------------

    @property
    def profile_store(self) -> ProfileSource | None:
        """Where `switch_profile` and `get_or_create_profile_llm` load profiles (None: the
        user's `~/.openhands/profiles`; the agent server sets its own store)."""
        return self._llm_switching.profile_store

    @profile_store.setter
    def profile_store(self, store: ProfileSource | None) -> None:
        self._llm_switching.profile_store = store

    def switch_llm(self, llm: LLM) -> None:
        """Drive the agent with `llm` from the next LLM call on (`LLMSwitching.switch_llm`)."""
        self._llm_switching.switch_llm(llm)

    def switch_profile(self, profile_name: str) -> None:
        """Switch to the LLM saved as profile `profile_name` (`LLMSwitching.switch_profile`)."""
        self._llm_switching.switch_profile(profile_name)

    def get_or_create_profile_llm(self, profile_name: str, usage_id: str) -> LLM:
        """Profile `profile_name`'s LLM under `usage_id`, for a tool's one-off calls; the
        agent's model is not changed (`LLMSwitching.get_or_create_profile_llm`)."""
        return self._llm_switching.get_or_create_profile_llm(profile_name, usage_id)

    # -- plugins (`PluginLoading`) ----------------------------------------------------------------

    def load_plugin(self, plugin: PluginSource | str) -> None:
        """Fetch `plugin` (a folder, a git URL, `github:owner/repo`, or a `PluginSource`) and
        load it into this conversation between runs (`PluginLoading.load`)."""
        resolved = self._plugins.load(plugin)
        self.resolved_plugins = [*(self.resolved_plugins or []), *resolved]


class _Core:
    """What a local conversation's collaborators see of it: a `ConversationCore`."""

    def __init__(
        self, conversation: ConversationParts[Any], state: ConversationState, recorder: Recorder
    ) -> None:
        self._conversation = conversation
        self._state = state
        self._recorder = recorder

    @property
    def state(self) -> ConversationState:
        return self._state

    @property
    def tools(self) -> Mapping[str, ToolDefinition]:
        return self._conversation.tools

    @property
    def is_running(self) -> bool:
        return self._conversation.is_running

    @property
    def is_closed(self) -> bool:
        return self._conversation.is_closed

    def emit(self, event: Event) -> Event:
        return self._recorder.emit(event)

    def set_status(self, status: Status, *, best_effort: bool = False) -> None:
        self._recorder.set_status(status, best_effort=best_effort)

    def record_stats(self) -> None:
        self._recorder.record_stats()

    def save_config(self) -> None:
        self._recorder.save_config()
