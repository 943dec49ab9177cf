"""This project's clients (`Workspace(host=...)`, `RemoteConversation`) drive the reference's
agent server (from PyPI, in its own venv)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from interop_env import ServerProcess
from interop_script import DONE, KEEP_WORKING
from openhands.sdk import LLM, Event
from openhands.sdk.conversation import ConversationExecutionStatus as Status
from openhands.sdk.event import ActionEvent, MessageEvent, ObservationEvent
from openhands.sdk.remote import RemoteConversation, RemoteWorkspace
from openhands.sdk.security.confirmation_policy import AlwaysConfirm
from openhands.tools.preset.default import get_default_agent
from pydantic import SecretStr
from waits import EVENT_WAIT

pytestmark = pytest.mark.timeout(600)

WAIT = EVENT_WAIT


class Seen:
    """Events a conversation's callbacks received, waitable."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.changed = threading.Condition()

    def __call__(self, event: Event) -> None:
        with self.changed:
            self.events.append(event)
            self.changed.notify_all()

    def wait_for(self, kind: type[Event]) -> None:
        with self.changed:
            assert self.changed.wait_for(
                lambda: any(isinstance(e, kind) for e in self.events), timeout=WAIT
            ), f"no {kind.__name__} within {WAIT} s"


@pytest.fixture
def workspace(reference_server: ServerProcess, client_config: dict[str, str]) -> RemoteWorkspace:
    return RemoteWorkspace(
        host=reference_server.url,
        api_key=SecretStr(reference_server.key),
        working_dir=client_config["working_dir"],
    )


@pytest.fixture
def seen() -> Seen:
    return Seen()


@pytest.fixture
def conversation(
    workspace: RemoteWorkspace, client_config: dict[str, str], seen: Seen
) -> Iterator[RemoteConversation]:
    llm = LLM(
        model=client_config["model"],
        base_url=client_config["base_url"],
        api_key=SecretStr("fake-key"),
        usage_id="agent",
        num_retries=0,
    )
    conv = RemoteConversation(get_default_agent(llm, cli_mode=True), workspace, callbacks=[seen])
    yield conv
    conv.close()


def _observations(conversation: RemoteConversation) -> list[str]:
    return [
        e.observation.text for e in conversation.state.events if isinstance(e, ObservationEvent)
    ]


def _agent_texts(conversation: RemoteConversation) -> list[str]:
    return [
        e.llm_message.text
        for e in conversation.state.events
        if isinstance(e, MessageEvent) and e.llm_message.role == "assistant"
    ]


def test_execute_command_reads_the_reference_servers_bash_output(
    workspace: RemoteWorkspace,
) -> None:
    result = workspace.execute_command("echo hi")
    assert (result.exit_code, result.stdout) == (0, "hi\n")


def test_a_default_agent_conversation_runs_to_finished_with_events_over_rest_and_socket(
    conversation: RemoteConversation, seen: Seen
) -> None:
    conversation.send_message("please say hi")
    conversation.run()

    assert conversation.state.execution_status == Status.FINISHED
    assert _observations(conversation) == ["hi"]
    assert _agent_texts(conversation)[-1] == DONE
    actions = [e for e in conversation.state.events if isinstance(e, ActionEvent)]
    assert [type(a.action).__name__ for a in actions] == ["TerminalAction"]
    assert {ActionEvent, ObservationEvent, MessageEvent} <= {type(e) for e in seen.events}
    # A fresh client reads the same history over REST (the reference orders its REST pages
    # by time stamp and its socket by publication, so compare the events, not their order).
    again = RemoteConversation(
        conversation.agent, conversation.workspace, conversation_id=conversation.id
    )
    try:
        mirrored = [e.id for e in conversation.state.events]
        assert sorted(e.id for e in again.state.events) == sorted(mirrored)
        assert len(set(mirrored)) == len(mirrored)
    finally:
        again.close()


def test_pause_stops_a_run_and_a_new_message_runs_again(
    conversation: RemoteConversation, seen: Seen
) -> None:
    conversation.send_message(f"{KEEP_WORKING} until I pause you")
    runner = threading.Thread(target=conversation.run)
    runner.start()
    seen.wait_for(ObservationEvent)
    conversation.pause()
    runner.join(timeout=WAIT)
    assert not runner.is_alive()
    assert conversation.state.execution_status == Status.PAUSED

    conversation.send_message("now stop and say hi")
    conversation.run()
    assert conversation.state.execution_status == Status.FINISHED


def test_fork_copies_the_history_and_then_diverges(conversation: RemoteConversation) -> None:
    conversation.send_message("please say hi")
    conversation.run()
    source_ids = [e.id for e in conversation.state.events]

    fork = conversation.fork(title="the fork")
    try:
        texts = [e.llm_message.text for e in fork.state.events if isinstance(e, MessageEvent)]
        assert "please say hi" in texts
        fork.send_message("and once more")
        fork.run()
        assert fork.id != conversation.id
        assert fork.state.execution_status == Status.FINISHED
        assert len(fork.state.events) > len(source_ids)
    finally:
        fork.close()
    assert [e.id for e in conversation.state.events] == source_ids


def test_a_confirmation_round_waits_then_runs_the_approved_call(
    conversation: RemoteConversation,
) -> None:
    conversation.set_confirmation_policy(AlwaysConfirm())
    conversation.send_message("please say hi")
    conversation.run()
    assert conversation.state.execution_status == Status.WAITING_FOR_CONFIRMATION
    assert _observations(conversation) == []

    conversation.run()  # approves the waiting call
    assert conversation.state.execution_status == Status.FINISHED
    assert _observations(conversation) == ["hi"]


def test_a_goal_on_the_reference_server_completes(conversation: RemoteConversation) -> None:
    conversation.start_goal("say hi in the terminal", max_iterations=2)
    status = conversation.wait_for_goal(timeout=WAIT)
    assert (status.status, status.iteration, status.active) == ("complete", 1, False)
    assert conversation.goal_status() == status
