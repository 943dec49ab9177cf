"""`ClientCalls` alone, behind a `ConversationCore`: what waits is read from the log."""

from __future__ import annotations

import pytest
from core_for_tests import MakeCore
from openhands.sdk.conversation.client_calls import ClientCalls
from openhands.sdk.conversation.errors import ConversationClosedError
from openhands.sdk.errors import InvalidArgumentError


def test_nothing_waits_without_a_client_tool(make_core: MakeCore) -> None:
    calls = ClientCalls(make_core(tools=["echo"]))

    assert calls.pending == []
    with pytest.raises(InvalidArgumentError, match=r"waiting: none"):
        calls.respond("call_1", "ok")


def test_a_closed_conversation_takes_no_answer(make_core: MakeCore) -> None:
    core = make_core()
    core.is_closed = True

    with pytest.raises(ConversationClosedError, match="reopen it"):
        ClientCalls(core).respond("call_1", "ok")
