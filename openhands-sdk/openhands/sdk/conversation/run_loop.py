"""`RunLoop`: a `LocalConversation`'s runs: run, pause, interrupt, and how a run ends.

A collaborator the conversation owns (see `conversation.core`), and the only owner of the
run's flags: the run lock, the pause and interrupt requests, the step count and the request
to end the run after the current step (`end_after_step`, asked by the agent through its
conversation when a step's calls wait for approval or for the client). One run at a time
holds the run lock; each step is one `agent.step` (the host's `step`), whose events are
recorded unless `interrupt()` cut it short. A run ends `finished` (a Stop hook may deny that
and keep the agent going), `paused`, `waiting_for_confirmation`, `stuck`, or `error` (a failed
step, the step cap). The final status is published after the run lock is released, so
whoever sees it may start the next run at once.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openhands.sdk.conversation.core import require_open
from openhands.sdk.conversation.errors import (
    MAX_ITERATIONS_REACHED,
    ConversationAlreadyRunningError,
    ConversationRunError,
)
from openhands.sdk.conversation.event_log import EventLogClosedError
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.errors import StorageError
from openhands.sdk.event.action import AgentErrorEvent, ObservationEvent, UserRejectObservation
from openhands.sdk.event.base import Event
from openhands.sdk.event.message import MessageEvent
from openhands.sdk.event.state import ConversationErrorEvent, InterruptEvent, PauseEvent
from openhands.sdk.hooks.config import HookEventType
from openhands.sdk.llm.message import Message, TextContent

if TYPE_CHECKING:
    from openhands.sdk.conversation.approvals import Approvals
    from openhands.sdk.conversation.client_calls import ClientCalls
    from openhands.sdk.conversation.core import ConversationCore
    from openhands.sdk.conversation.stuck import StuckDetector
    from openhands.sdk.hooks.runner import HookRunner

__all__ = ["CLOSE_WAIT_SECONDS", "STOP_HOOK_FEEDBACK_PREFIX", "RunLoop", "Step"]

logger = logging.getLogger(__name__)

Status = ConversationExecutionStatus

CLOSE_WAIT_SECONDS = 30.0
"""How long `close()` waits for a running step to end before releasing files anyway."""

STOP_HOOK_FEEDBACK_PREFIX = "[Stop hook feedback]"
"""Starts the message a Stop hook's feedback is given to the agent in."""

Step = Callable[[Callable[[Event], None]], bool]
"""One agent step: records its events through the callable it is given; True when the agent
wants to finish."""


@dataclass(frozen=True)
class _RunOutcome:
    """How a run ended; published only after the run lock is released."""

    status: ConversationExecutionStatus
    code: str | None = None
    detail: str = ""
    cause: BaseException | None = None
    raises: bool = True  # an error outcome makes run() raise ConversationRunError
    interrupted: bool = False  # record an InterruptEvent


_INTERRUPTED = _RunOutcome(ConversationExecutionStatus.PAUSED)
"""How a run ends when a step is cut short by KeyboardInterrupt or SystemExit: resumable."""

_RESULT_EVENTS = (ObservationEvent, AgentErrorEvent, UserRejectObservation)
"""The answer to a tool call that already ran: kept even when the step was interrupted."""


class _StepInterrupted(BaseException):
    """Unwinds an agent step after `interrupt()` (a BaseException, so no tool handler eats it)."""


class RunLoop:
    """Runs the agent of one conversation, one run at a time (see the module docstring)."""

    def __init__(
        self,
        core: ConversationCore,
        *,
        step: Step,
        hooks: HookRunner,
        stuck: StuckDetector,
        approvals: Approvals,
        client_calls: ClientCalls,
    ) -> None:
        self._core = core
        self._step = step
        self._hooks = hooks
        self._stuck = stuck
        self._approvals = approvals
        self._client_calls = client_calls
        self._pause_requested = threading.Event()
        self._interrupted = threading.Event()
        self._run_lock = threading.Lock()
        self._run_thread: int | None = None
        self._steps = 0  # agent steps taken in the current run
        self._step_start = 0  # event count when the current step began
        self._end_after: ConversationExecutionStatus | None = None  # asked during this step

    @property
    def is_running(self) -> bool:
        """True while `run()` is executing in some thread.

        It turns False just before the final status is published, so whoever sees that status
        may start the next run at once.
        """
        return self._run_lock.locked()

    def run(self) -> None:
        """Run the agent until it finishes, pauses, errors, gets stuck or hits the step cap.

        Raises `ConversationRunError` (with the error's code and detail) when the run fails,
        and `ConversationAlreadyRunningError` if another thread is running it.
        """
        require_open(self._core)
        state = self._core.state
        if not self._run_lock.acquire(blocking=False):
            raise ConversationAlreadyRunningError(
                f"Conversation {state.id} is already running; pause it or wait for it to finish."
            )
        try:
            self._run_thread = threading.get_ident()
            with state.lock:
                # A pause requested before this run started (or left from the last) is spent.
                self._pause_requested.clear()
                self._interrupted.clear()
                self._approvals.approve_if_waiting()
                self._core.set_status(Status.RUNNING)
        except BaseException:
            # Not started (the disk refused `running`): nothing to end, the status is unchanged.
            self._run_thread = None
            self._run_lock.release()
            raise
        outcome = _INTERRUPTED
        ended = False
        try:
            self._steps = 0
            while not ended:
                outcome = _INTERRUPTED
                outcome = self._run_steps()
                with state.lock:
                    # Decided under the lock that send_message takes, so a message sent while
                    # the agent was finishing is answered instead of left behind `finished`.
                    if outcome.status == Status.FINISHED and self._user_spoke_since_step():
                        continue
                    ended = True
                    outcome = self._end_run(outcome)
        finally:
            if not ended:
                with state.lock:
                    self._end_run(outcome)
        if outcome.status == Status.ERROR and outcome.raises:
            raise ConversationRunError(state.id, outcome.code or "Error", outcome.detail) from (
                outcome.cause
            )

    def interrupt(self) -> None:
        """Stop a run now, not after its step: the run ends `paused` with an InterruptEvent.

        An LLM reply that arrives after the interrupt is dropped, and no further tool call of
        that step runs; a tool call already running finishes first (its result is kept).
        An LLM request already sent cannot be taken back: the run ends when it returns.
        Without a run this is `pause()`. Only sets flags while a run is going, so it is safe
        from a signal handler and from any thread.
        """
        if self._core.is_closed:
            return
        if self.is_running:
            self._interrupted.set()
            self._pause_requested.set()
            if self.is_running:
                return
        self.pause()

    def pause(self) -> None:
        """Stop after the current step (a running conversation) or mark an idle one paused."""
        if self._core.is_closed:
            return
        state = self._core.state
        with state.lock:
            status = state.execution_status
            if status == Status.PAUSED and not self.is_running:
                return
            self._pause_requested.set()
            self._core.emit(PauseEvent())
            if status != Status.RUNNING:
                self._core.set_status(Status.PAUSED, best_effort=True)

    def end_after_step(self, status: ConversationExecutionStatus) -> None:
        """End the run after the current step with `status`: `waiting_for_confirmation` when
        the step's calls wait for approval, `paused` when a client tool call waits for its
        answer. The step's first request stands."""
        if self._end_after is None:
            self._end_after = status

    @contextlib.contextmanager
    def stopped(self) -> Iterator[None]:
        """Ask a run to stop after its step and hold the run lock meanwhile (for `close()`),
        so no run starts.

        Waits up to CLOSE_WAIT_SECONDS for a running step; a step that takes longer is left
        running, with a warning. Closing from the run's own thread (a callback) needs no wait.
        """
        self._pause_requested.set()
        waited = self._run_thread == threading.get_ident() or self._run_lock.acquire(
            timeout=CLOSE_WAIT_SECONDS
        )
        if not waited:
            logger.warning(
                "conversation %s: closing while a step is still running (%ss passed)",
                self._core.state.id,
                CLOSE_WAIT_SECONDS,
            )
        try:
            yield
        finally:
            if waited and self._run_thread != threading.get_ident():
                self._run_lock.release()

    # -- the steps of a run ---------------------------------------------------------------------

    def _run_steps(self) -> _RunOutcome:
        state = self._core.state
        if self._steps == 0 and self._client_calls.pending:
            return _RunOutcome(Status.PAUSED)  # a client tool call still waits for its answer
        if self._steps == 0 and self._approvals.unanswered_wait():
            return _RunOutcome(Status.WAITING_FOR_CONFIRMATION)
        while True:
            if self._interrupted.is_set():
                return _RunOutcome(Status.PAUSED, interrupted=True)
            if self._pause_requested.is_set():
                return _RunOutcome(Status.PAUSED)
            if self._steps >= state.max_iterations:
                return _RunOutcome(
                    Status.ERROR,
                    MAX_ITERATIONS_REACHED,
                    f"The agent took {self._steps} steps without finishing; raise "
                    "max_iteration_per_run or send a message and run again to continue.",
                    raises=False,
                )
            self._step_start = len(state.events)
            self._end_after = None
            try:
                wants_to_finish = self._step(self._step_emit)
            except _StepInterrupted:
                return _RunOutcome(Status.PAUSED, interrupted=True)
            except Exception as exc:
                return _RunOutcome(Status.ERROR, type(exc).__name__, str(exc) or repr(exc), exc)
            self._steps += 1
            if self._end_after is not None:
                return _RunOutcome(self._end_after)
            if wants_to_finish:
                if self._user_spoke_since_step():
                    continue
                if not self._stop_denied():
                    return _RunOutcome(Status.FINISHED)
            # After a plain step, and after a denied Stop: a hook that always denies must not
            # keep the agent talking to itself until the step cap.
            reason = self._stuck.check() if state.stuck_detection else None
            if reason is not None:
                return _RunOutcome(
                    Status.STUCK,
                    "Stuck",
                    f"The agent {reason}; send it a message with new guidance and run again.",
                )

    def _step_emit(self, event: Event) -> None:
        """Record an event of the running step, unless the step was interrupted.

        After `interrupt()`, the result of a tool call that already ran is still recorded
        (then the step ends); anything else (a late LLM reply, the next call) is dropped.
        """
        if not self._interrupted.is_set():
            self._core.emit(event)
            return
        if isinstance(event, _RESULT_EVENTS):
            self._core.emit(event)
        raise _StepInterrupted

    def _user_spoke_since_step(self) -> bool:
        """Whether a user message arrived after the current step's LLM call began."""
        return any(
            isinstance(event, MessageEvent) and event.source == "user"
            for event in self._core.state.events.read(self._step_start)
        )

    def _end_run(self, outcome: _RunOutcome) -> _RunOutcome:
        # Free the run lock before publishing the final status, so a callback that sees
        # `finished` can start the next run at once. The caller holds the state lock.
        self._run_thread = None
        self._run_lock.release()
        return self._publish_outcome(outcome)

    def _publish_outcome(self, outcome: _RunOutcome) -> _RunOutcome:
        """Record how the run ended (usage, error, status); return how it really ended."""
        state = self._core.state
        try:
            self._core.record_stats()
            if outcome.interrupted:
                self._core.emit(InterruptEvent())
            if outcome.code is not None:
                self._core.emit(ConversationErrorEvent(code=outcome.code, detail=outcome.detail))
            self._core.set_status(outcome.status)
            state.update_event_files()
        except EventLogClosedError:
            # close() gave up waiting for this run; the status is only kept in memory.
            state.execution_status = outcome.status
            logger.warning("conversation %s: run ended %s after close", state.id, outcome.status)
        except StorageError as exc:
            # The end could not be recorded: the run failed, in memory at least, so nobody
            # waits on a `running` that will never change. A reopen finds `running` in the
            # log and records the interruption.
            state.execution_status = Status.ERROR
            logger.error("conversation %s: the end of a run was not recorded: %s", state.id, exc)
            return _RunOutcome(Status.ERROR, type(exc).__name__, str(exc), exc)
        return outcome

    def _stop_denied(self) -> bool:
        """Run Stop hooks; if one blocks, give its feedback to the agent and keep going."""
        result = self._hooks.run(HookEventType.STOP, {"conversation_id": self._core.state.id.hex})
        if not result.blocked:
            return False
        feedback = f"{STOP_HOOK_FEEDBACK_PREFIX}\n{result.feedback}"
        self._core.emit(
            MessageEvent(
                source="hook",
                llm_message=Message(role="user", content=[TextContent(text=feedback)]),
            )
        )
        return True
