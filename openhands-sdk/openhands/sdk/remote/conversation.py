"""`RemoteConversation`: a conversation that lives on an agent server, driven over REST + WS."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.sdk.agent.agent import Agent, AgentBase
from openhands.sdk.conversation.base import BaseConversation, as_user_message
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.errors import (
    MAX_ITERATIONS_REACHED,
    ConversationClosedError,
    ConversationRunError,
)
from openhands.sdk.conversation.goal.limits import GoalLimitsChange
from openhands.sdk.conversation.goal.options import DEFAULT_MAX_ITERATIONS, GoalRequest
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.conversation.visualizer.base import ConversationVisualizerBase
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.event.state import ConversationErrorEvent, ConversationStateUpdateEvent
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.message import Message
from openhands.sdk.remote.checkpoints import RemoteCheckpoints
from openhands.sdk.remote.client import RemoteClient
from openhands.sdk.remote.controls import RemoteControls, secret_specs
from openhands.sdk.remote.events import Callback, EventStream, RemoteEventCache
from openhands.sdk.remote.goals import RemoteGoals
from openhands.sdk.remote.state import RemoteState
from openhands.sdk.remote.workspace import RemoteWorkspace
from openhands.sdk.security.analyzer import SecurityAnalyzerBase
from openhands.sdk.security.approval_rules import AllowRule
from openhands.sdk.security.confirmation_policy import ConfirmationPolicyBase
from openhands.sdk.wire import (
    ClientToolResponseRequest,
    ConfirmationResponseRequest,
    ForkConversationRequest,
    ResumeGoalRequest,
    SendMessageRequest,
    SetConfirmationPolicyRequest,
    SetSecurityAnalyzerRequest,
    StartConversationRequest,
    to_wire,
)
from openhands.sdk.workspace.checkpoints import Checkpoint, CheckpointDiff, RewindResult

if TYPE_CHECKING:
    from openhands.sdk.conversation.goal import GoalStatus
    from openhands.sdk.plugin.types import PluginSource
    from openhands.sdk.secret import SecretValue
    from openhands.sdk.tool.client_tool import ClientToolSpec
    from openhands.sdk.tool.schema import Action, Observation

logger = logging.getLogger(__name__)

Status = ConversationExecutionStatus

RECHECK_INTERVAL = 30.0
"""Seconds without any event after which `run()` re-reads the status over REST (a safety net
for a socket that is silently stuck; normally the terminal status arrives as an event)."""


class RemoteConversation(BaseConversation):
    """A conversation on an agent server: same API as a local one, plus the goal API.

    Events are mirrored into `state.events` by a background WebSocket reader; `callbacks`
    run on that thread for every new event. `persistence_dir` is accepted for signature
    compatibility and ignored: the server persists the conversation (OH_CONVERSATIONS_PATH).
    `close()` disconnects but leaves the conversation on the server.
    """

    def __init__(
        self,
        agent: AgentBase,
        workspace: RemoteWorkspace,
        *,
        conversation_id: uuid.UUID | None = None,
        callbacks: Sequence[Callback] | None = None,
        max_iteration_per_run: int = 500,
        hook_config: HookConfig | None = None,
        persistence_dir: str | Path | None = None,
        visualizer: type[ConversationVisualizerBase] | ConversationVisualizerBase | None = None,
        client_tools: Sequence[ClientToolSpec] | None = None,
        plugins: Sequence[PluginSource] | None = None,
        secrets: Mapping[str, SecretValue] | None = None,
    ) -> None:
        """Create the conversation on the server (or attach to `conversation_id`) and subscribe.

        `visualizer` (an instance or a class) is shown every mirrored event, after the
        callbacks. `client_tools` are tools this client runs (their calls arrive as
        ActionEvents; answer a waiting one with `respond_to_client_tool`); `plugins` are
        fetched and merged into the agent by the server (sources are the server's);
        `secrets` are given to the agent's commands as by `update_secrets`.
        """
        del persistence_dir  # the server owns persistence
        if isinstance(visualizer, type):
            visualizer = visualizer()
        listeners = list(callbacks or ())
        if visualizer is not None:
            listeners.append(visualizer.on_event)
        if max_iteration_per_run < 1:
            raise InvalidArgumentError(
                f"max_iteration_per_run must be >= 1 (agent steps per run()), got "
                f"{max_iteration_per_run}"
            )
        self._agent = agent
        self._workspace = workspace
        self._client = RemoteClient(workspace.host, workspace.api_key)
        self._closed = False
        self._run_lock = threading.Lock()
        try:
            info = self._client.create_conversation(
                StartConversationRequest(
                    agent=_wire_agent(agent),
                    workspace=StartConversationRequest.server_workspace(workspace.working_dir),
                    conversation_id=conversation_id,
                    max_iterations=max_iteration_per_run,
                    hook_config=hook_config,
                    client_tools=list(client_tools or ()),
                    plugins=list(plugins or ()),
                    secrets=secret_specs(secrets or {}),
                )
            )
            self._id = info.id
            self._events = RemoteEventCache()
            for event in self._client.iter_events(self._id):
                self._events.add(event)
            # The reference SDK's scripts append to `_callbacks`; the stream reads this list.
            self._callbacks = listeners
            self._stream = EventStream(self._client, self._id, self._events, listeners)
            self._stream.start()
        except BaseException:
            self._client.close()
            raise
        self._state = RemoteState(self._id, agent, self._client, self._events)
        self._goals = RemoteGoals(self._client, self._id, self._events)
        self._checkpoints = RemoteCheckpoints(self._client, self._id)
        self._controls = RemoteControls(self._client, self._id)
        if visualizer is not None:
            visualizer.initialize(self._state)

    # -- BaseConversation ---------------------------------------------------------------------

    @property
    def id(self) -> uuid.UUID:
        return self._id

    @property
    def state(self) -> RemoteState:
        return self._state

    @property
    def agent(self) -> AgentBase:
        """The agent this conversation was created with."""
        return self._agent

    @property
    def conversation_stats(self) -> ConversationStats:
        """LLM usage per usage_id, as the server last recorded it (one REST read)."""
        return self._state.stats

    @property
    def workspace(self) -> RemoteWorkspace:
        """The server (and working directory on it) this conversation runs in."""
        return self._workspace

    def send_message(self, message: str | Message, sender: str | None = None) -> None:
        self._check_open()
        request = SendMessageRequest.of(as_user_message(message), sender=sender)
        self._client.send_message(self._id, request)

    def run(self) -> None:
        """Start a run on the server and block until it is over (finished, paused, error, stuck).

        Raises `ConversationRunError` on `error`, with the server's error detail, and
        `ConversationAlreadyRunningError` if a run (or a goal) is already in progress. Like a
        local run, `stuck` and the step cap (`error` with `MaxIterationsReached`) are a
        status, not an exception.
        """
        self._check_open()
        with self._run_lock:
            # Events the server appends from now on sit at positions >= start in the mirror
            # (the socket streams in log order), so a stale status from an earlier run that is
            # still in flight on the socket can never end this run.
            start = self._client.count_events(self._id)
            self._client.run(self._id)
            self._wait_for_run_end(start)

    def pause(self) -> None:
        self._check_open()
        self._client.pause(self._id)

    def interrupt(self) -> None:
        """Stop the run now, not after its step: an LLM reply still on its way is dropped (a
        tool call already running finishes first); the run ends `paused`, and `run()`
        returns. Without a run, the same as `pause()`."""
        self._check_open()
        self._controls.interrupt()

    # -- what the server changes on the conversation ------------------------------------------

    def set_title(self, title: str) -> None:
        """Name the conversation (saved on the server, kept across its restarts; `state.title`
        reads it back). `InvalidArgumentError` for a blank title or one over 200 characters."""
        self._check_open()
        self._controls.set_title(title)

    def navigate_to(self, event_id: str | None) -> None:
        """Move the HEAD of the event tree to `event_id` (None: an empty tree): the agent's
        context becomes the branch from the root to it, and the next event starts a sibling
        branch there; nothing is deleted. `UnknownEventError` for an event not in the log,
        `ConversationAlreadyRunningError` during a run (as for a local conversation)."""
        self._check_open()
        self._controls.navigate_to(event_id)

    def update_secrets(self, secrets: Mapping[str, SecretValue]) -> None:
        """Add or replace secrets: a terminal command naming `$NAME` gets the value, and its
        output shows `<secret-hidden>` instead. Values travel to the server (which seals them
        in the conversation's folder, so a restart or a fork keeps them); they never enter
        the events. `InvalidArgumentError` for a name that is not an environment variable
        name or a value that is neither a string nor a `SecretSource`."""
        self._check_open()
        self._controls.update_secrets(secrets)

    def condense(self) -> None:
        """Condense the history now with the agent's condenser (the log keeps every event;
        the LLM's view gets a summary), as `LocalConversation.condense`.
        `CondenserUnavailableError` (a ValueError) when the agent has none that condenses on
        request; `ConversationAlreadyRunningError` during a run."""
        self._check_open()
        self._controls.condense()

    def load_plugin(self, plugin_ref: PluginSource | str) -> None:
        """Load a plugin between runs (a folder on the server, a git URL, `github:owner/repo`,
        or `name@marketplace`): its skills, MCP servers and hooks apply from the next message
        on. `RemoteRequestError` for one that cannot be fetched or read."""
        self._check_open()
        self._controls.load_plugin(plugin_ref)

    def switch_llm(self, llm: LLM) -> None:
        """Drive the agent with `llm` from its next LLM call on (the history is kept). Its key,
        if it has one, is sealed on the server; without one the server's stored key for the
        same model and base URL is used. `conversation.agent.llm` is `llm` afterwards."""
        self._check_open()
        self._controls.switch_llm(llm)
        self._use_agent(self._agent.model_copy(update={"llm": llm}))

    def switch_profile(self, profile_name: str) -> None:
        """Drive the agent with the server's stored LLM profile `profile_name` (its usage is
        counted under `profile:<name>`; `conversation.agent.llm` is the profile's LLM as the
        server shows it, without its key). `NotFoundError` (a FileNotFoundError, as for a
        local conversation) naming the profiles there are, for an unknown one."""
        self._check_open()
        self._controls.switch_profile(profile_name)
        llm = self._state.info().agent.llm
        self._use_agent(self._agent.model_copy(update={"llm": llm}))

    def ask_agent(self, question: str) -> str:
        """The agent's LLM's answer to `question` about the conversation so far. Nothing is
        recorded (no event, no status change) and it is safe during a run.
        `InvalidArgumentError` for a blank question; `RemoteServerError` (502) when the LLM
        call fails."""
        self._check_open()
        return self._controls.ask_agent(question)

    def execute_tool(self, tool_name: str, action: Action) -> Observation:
        """Not offered for a remote conversation (as in the reference): the server runs tools
        within the agent's steps. Use a `LocalConversation` to run one directly."""
        raise NotImplementedError(
            "execute_tool is not available on a RemoteConversation: tools run on the server "
            "within the agent's steps. Use a LocalConversation to run a tool directly."
        )

    def _use_agent(self, agent: AgentBase) -> None:
        """Show `agent` as this conversation's agent from now on (after the server changed
        it), here and in `state.agent`."""
        self._agent = agent
        self._state.use_agent(agent)

    def fork(
        self,
        *,
        conversation_id: uuid.UUID | None = None,
        agent: AgentBase | None = None,
        title: str | None = None,
        tags: dict[str, str] | None = None,
        reset_metrics: bool = True,
        from_event_id: str | None = None,
    ) -> RemoteConversation:
        """A new conversation on the server with a copy of this one's history (up to
        `from_event_id`, if given; its usage starts at zero unless `reset_metrics` is false),
        attached and streaming like this one. `agent` cannot be replaced on a server fork
        (NotImplementedError, as in the reference)."""
        self._check_open()
        if agent is not None:
            raise NotImplementedError(
                "A server fork keeps the conversation's agent; fork a LocalConversation to "
                "give the fork another agent."
            )
        request = ForkConversationRequest(
            id=conversation_id,
            title=title,
            tags=tags,
            reset_metrics=reset_metrics,
            from_event_id=from_event_id,
        )
        body = to_wire(request)
        answer = self._client.request(
            "POST",
            f"/api/conversations/{self._id}/fork",
            json=body,
            not_found=f"Conversation {self._id}",
        )
        fork_id = uuid.UUID(str(answer["id"]))
        return RemoteConversation(self._agent, self._workspace, conversation_id=fork_id)

    def generate_title(self, llm: LLM | None = None, max_length: int = 50) -> str:
        """A title from the first user message: with `llm` (default: the agent's), one
        non-streaming completion on this machine; without an answer, the message cut."""
        from openhands.sdk.conversation.title_utils import generate_conversation_title

        self._check_open()
        chosen = llm if llm is not None else self._agent.llm.copy_for("title", stream=False)
        return generate_conversation_title(self.state.events, llm=chosen, max_length=max_length)

    # -- human approval -----------------------------------------------------------------------

    def set_confirmation_policy(self, policy: ConfirmationPolicyBase) -> None:
        """Choose which tool calls wait for approval on the server (`run()` then approves)."""
        self._check_open()
        self._client.post_json(
            self._id,
            "confirmation_policy",
            to_wire(SetConfirmationPolicyRequest.model_validate({"policy": policy})),
        )

    def set_security_analyzer(self, analyzer: SecurityAnalyzerBase | None) -> None:
        """Choose what rates each call's risk on the server (None: every call UNKNOWN)."""
        self._check_open()
        request = SetSecurityAnalyzerRequest.model_validate({"security_analyzer": analyzer})
        self._client.post_json(self._id, "security_analyzer", to_wire(request))

    def reject_pending_actions(self, reason: str = "User rejected the action.") -> None:
        """Reject the calls that wait for approval; `run()` lets the agent go on."""
        self._check_open()
        request = ConfirmationResponseRequest(accept=False, reason=reason)
        self._client.post_json(self._id, "events/respond_to_confirmation", to_wire(request))

    def approve_pending_actions(self) -> None:
        """Approve the calls that wait for approval; the server runs them (or the goal that
        drives the conversation does)."""
        self._check_open()
        request = ConfirmationResponseRequest(accept=True)
        self._client.post_json(self._id, "events/respond_to_confirmation", to_wire(request))

    def add_approval_rule(self, rule: AllowRule) -> None:
        """Always allow the calls `rule` matches in this conversation (see `AllowRule`)."""
        self._check_open()
        self._client.post_json(self._id, "approval_rules", rule.model_dump(mode="json"))

    # -- checkpoints (docs/checkpoints.md) -----------------------------------------------------

    def list_checkpoints(self) -> list[Checkpoint]:
        """The workspace's checkpoints on the server, oldest first."""
        self._check_open()
        return self._checkpoints.list()

    def checkpoint(self, label: str, *, goal_round: int | None = None) -> Checkpoint:
        """Snapshot the workspace on the server now (`goal_round`: the goal round it ends)."""
        self._check_open()
        return self._checkpoints.take(label, goal_round)

    def checkpoint_diff(self, target: str, base: str | None = None) -> CheckpointDiff:
        """The changes from `base` (default: the checkpoint before `target`) to `target`."""
        self._check_open()
        return self._checkpoints.diff(target, base)

    def rewind(self, checkpoint_id: str) -> RewindResult:
        """Restore the workspace on the server to a checkpoint (refused while it works)."""
        self._check_open()
        return self._checkpoints.rewind(checkpoint_id)

    def respond_to_client_tool(
        self, tool_call_id: str, result: str, *, is_error: bool = False, run: bool = False
    ) -> None:
        """Answer a client tool call that waits (see `openhands.sdk.tool.client_tool`); with
        `run=True` the agent goes on and this returns when that run is over."""
        self._check_open()
        request = ClientToolResponseRequest(
            tool_call_id=tool_call_id, content=result, is_error=is_error, run=False
        )
        self._client.post_json(self._id, "client_tools/respond", to_wire(request))
        if run:
            self.run()

    def close(self) -> None:
        """Disconnect (socket and HTTP); the conversation stays on the server."""
        if self._closed:
            return
        self._closed = True
        self._stream.close()
        self._client.close()

    # -- goals --------------------------------------------------------------------------------

    def start_goal(
        self,
        objective: str | GoalRequest,
        *,
        max_iterations: int = DEFAULT_MAX_ITERATIONS,
        verify: str | None = None,
        judge_llm: LLM | None = None,
        max_cost: float | None = None,
        time_limit: float | None = None,
    ) -> None:
        """Start the server's goal loop on this conversation (it runs in the background).

        `verify` is a shell command that must exit 0 before the goal can be complete;
        `judge_llm` defaults to a copy of the agent's LLM; `max_cost` caps USD spent
        (agent + judge) and `time_limit` the seconds; None means unlimited. `objective` may be
        a whole `GoalRequest` instead (then leave the options at their defaults). Raises
        `InvalidGoalError` (a ValueError) naming a bad option before any request. Follow it
        with `wait_for_goal()`.
        """
        self._check_open()
        if isinstance(objective, GoalRequest):
            request = objective
        else:
            request = GoalRequest.checked(
                objective=objective,
                max_iterations=max_iterations,
                verify=verify,
                judge_llm=judge_llm,
                max_cost=max_cost,
                time_limit=time_limit,
            )
        self._goals.start(request)

    def goal_status(self) -> GoalStatus | None:
        """The latest goal status (the UI chip's value), or None if no goal ever ran."""
        self._check_open()
        return self._goals.status()

    def stop_goal(self) -> None:
        """Stop the running goal: the server cancels it and pauses the conversation."""
        self._check_open()
        self._goals.action("stop")

    def resume_goal(self, limits: GoalLimitsChange | None = None) -> None:
        """Resume an interrupted goal (same objective, same iteration count), or continue a
        capped one with new `limits` (e.g. `GoalLimitsChange(max_iterations=8)`: 8 rounds in
        all). The server answers `RemoteRequestError` when nothing can go on."""
        self._check_open()
        change = limits if limits is not None and limits.changes_anything else None
        body = None if change is None else to_wire(ResumeGoalRequest(**change.model_dump()))
        self._goals.action("resume", body)

    def wait_for_goal(self, timeout: float | None = None) -> GoalStatus:
        """Block until the goal is no longer active (and the agent has stopped); return its status.

        Raises `TimeoutError` after `timeout` seconds (None waits forever) and `ValueError`
        if no goal was ever started on this conversation.
        """
        self._check_open()
        return self._goals.wait(timeout)

    # -- internals ----------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise ConversationClosedError(
                f"RemoteConversation {self._id} is closed; create a new one (pass "
                "conversation_id to attach to the same conversation)."
            )

    def _wait_for_run_end(self, start: int) -> None:
        """Follow the mirrored events from `start` until this run's terminal status."""
        position = start
        started = False
        while True:
            if not self._events.wait_for_length(position, timeout=RECHECK_INTERVAL):
                if self._status_via_rest_is_final(start, started):
                    return
                continue
            for event in self._events.read(position):
                position += 1
                status = _execution_status(event)
                if status is None:
                    continue
                if status == Status.RUNNING:
                    started = True
                elif started and status.is_terminal:
                    if status == Status.ERROR:
                        self._raise_run_error(start)
                    # Confirm with one read: the server may have started another run since.
                    if self._status_via_rest_is_final(start, started):
                        return

    def _status_via_rest_is_final(self, start: int, started: bool) -> bool:
        status = self._state.execution_status
        if started and status == Status.IDLE:
            # A run never goes back to idle: the server restarted and reloaded the
            # conversation without it, and nothing will ever end it.
            raise ConversationRunError(
                self._id,
                "RunLost",
                "The agent server restarted during the run and the run was lost; "
                "call run() again to continue.",
            )
        if not started or not status.is_terminal:
            return False
        if status == Status.ERROR:
            self._raise_run_error(start)
        return True

    def _raise_run_error(self, start: int) -> None:
        for event in reversed(self._events.read(start)):
            if isinstance(event, ConversationErrorEvent):
                if event.code == MAX_ITERATIONS_REACHED:
                    return  # the step cap ends the run without raising, as a local run does
                raise ConversationRunError(self._id, event.code, event.detail)
        raise ConversationRunError(self._id, "Error", "The run ended with status error.")


def _wire_agent(agent: AgentBase) -> Agent:
    """`agent` as the request's `Agent` (its key kept: it goes to the server)."""
    if isinstance(agent, Agent):
        return agent
    return Agent.model_validate(agent.model_dump(context={"expose_secrets": True}))


def _execution_status(event: Any) -> Status | None:
    if isinstance(event, ConversationStateUpdateEvent) and event.key == "execution_status":
        try:
            return Status(event.value)
        except ValueError:
            return None
    return None
