"""`Branching` alone, behind a `ConversationCore`: the host opens what a fork makes, and the
HEAD does not move during a run."""

from __future__ import annotations

import pytest
from core_for_tests import MakeCore
from openhands.sdk.conversation.branching import Branching
from openhands.sdk.conversation.errors import ConversationAlreadyRunningError
from openhands.sdk.conversation.state import ConversationState
from openhands.sdk.event.message import MessageEvent
from openhands.sdk.llm.message import Message, TextContent


def _say(text: str) -> MessageEvent:
    return MessageEvent(
        source="user", llm_message=Message(role="user", content=[TextContent(text=text)])
    )


def test_a_fork_is_opened_by_the_host_around_a_copy_of_the_history(make_core: MakeCore) -> None:
    core = make_core()
    first = core.emit(_say("one"))
    core.emit(_say("two"))
    opened: list[ConversationState] = []
    branching = Branching(core, lambda state: opened.append(state) or state.id)

    fork_id = branching.fork(from_event_id=first.id, title="the first branch")

    [state] = opened
    assert fork_id == state.id != core.state.id
    assert [e.id for e in state.events] == [first.id]
    assert state.title == "the first branch"
    state.close()


def test_the_head_does_not_move_during_a_run(make_core: MakeCore) -> None:
    core = make_core()
    first = core.emit(_say("one"))
    core.emit(_say("two"))
    branching = Branching(core, lambda state: state)
    core.is_running = True

    with pytest.raises(ConversationAlreadyRunningError, match="pause it"):
        branching.navigate_to(first.id)

    core.is_running = False
    branching.navigate_to(first.id)
    assert core.state.leaf_event_id == first.id
