"""WebSocket /sockets/events/{id}: streaming, replay, reconnect without gaps, refusals."""

from __future__ import annotations

import uuid

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from websockets.exceptions import ConnectionClosed, InvalidStatus

from ..harness import EventSocket, ServerProcess, wait_until


def _log(client: httpx.Client, cid: str) -> list[dict]:
    response = client.get(f"/api/conversations/{cid}/events/search", params={"limit": 100})
    return response.json()["items"]


def _send(client: httpx.Client, cid: str, text: str, *, run: bool = False) -> None:
    body = {"content": [{"type": "text", "text": text}], "run": run}
    assert client.post(f"/api/conversations/{cid}/events", json=body).status_code == 200


def _finished(event: dict) -> bool:
    return event.get("key") == "execution_status" and event.get("value") == "finished"


def test_resend_all_replays_from_the_first_event(
    server: ServerProcess, conversation_id: str
) -> None:
    with server.socket(conversation_id, resend_all="true") as socket:
        assert socket.next()["kind"] == "SystemPromptEvent"


def test_without_options_only_new_events_arrive(
    server: ServerProcess, client: httpx.Client, conversation_id: str
) -> None:
    with server.socket(conversation_id) as socket:
        _send(client, conversation_id, "fresh")
        event = socket.next()
    assert event["kind"] == "MessageEvent"
    assert event["llm_message"]["content"][0]["text"] == "fresh"


def test_after_replays_what_followed_that_event(
    server: ServerProcess, client: httpx.Client, conversation_id: str
) -> None:
    _send(client, conversation_id, "a")
    _send(client, conversation_id, "b")
    log = _log(client, conversation_id)
    with server.socket(conversation_id, after=log[1]["id"]) as socket:
        replayed = [socket.next() for _ in log[2:]]
    assert [e["id"] for e in replayed] == [e["id"] for e in log[2:]]


@pytest.mark.slow
def test_a_live_run_streams_in_log_order(
    server: ServerProcess,
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    conversation_id: str,
) -> None:
    fake_llm.script(
        agent_model, [FakeReply.tool_call("think", {"thought": "t"}), FakeReply.text("done")]
    )
    with server.socket(conversation_id, resend_all="true") as socket:
        _send(client, conversation_id, "work", run=True)
        streamed = socket.until(_finished)
    assert [e["id"] for e in streamed] == [e["id"] for e in _log(client, conversation_id)]


def test_reconnecting_after_the_last_seen_event_misses_and_repeats_nothing(
    server: ServerProcess,
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    conversation_id: str,
) -> None:
    steps = [FakeReply.tool_call("think", {"thought": f"t{i}"}).delayed(0.05) for i in range(6)]
    fake_llm.script(agent_model, [*steps, FakeReply.text("done")])
    seen: list[dict] = []
    with server.socket(conversation_id, resend_all="true") as socket:
        _send(client, conversation_id, "work", run=True)
        seen += socket.until(lambda e: e["kind"] == "ActionEvent")
    # Events keep arriving while no socket is open; the next one starts after the last seen.
    with server.socket(conversation_id, after=seen[-1]["id"]) as socket:
        seen += socket.until(_finished)
    ids = [e["id"] for e in seen]
    assert len(ids) == len(set(ids))
    assert ids == [e["id"] for e in _log(client, conversation_id)]


def test_rest_read_then_subscribe_after_its_last_event_has_no_gap(
    server: ServerProcess,
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    conversation_id: str,
) -> None:
    steps = [FakeReply.tool_call("think", {"thought": f"t{i}"}).delayed(0.03) for i in range(8)]
    fake_llm.script(agent_model, [*steps, FakeReply.text("done")])
    _send(client, conversation_id, "work", run=True)
    head = _log(client, conversation_id)  # read while the agent is appending
    with server.socket(conversation_id, after=head[-1]["id"]) as socket:
        tail = [] if _finished(head[-1]) else socket.until(_finished)
    ids = [e["id"] for e in head + tail]
    assert ids == [e["id"] for e in _log(client, conversation_id)]


def _closed(socket: EventSocket) -> tuple[int, str]:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            socket.next()
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


def test_unknown_conversation_is_closed_4004_not_found(server: ServerProcess) -> None:
    # As the reference server does: accepted, then closed; its clients stop on 4004.
    with server.socket(str(uuid.uuid4())) as socket:
        assert _closed(socket) == (4004, "Conversation not found")


def test_malformed_conversation_id_is_closed_4004_not_found(server: ServerProcess) -> None:
    with server.socket("not-a-uuid") as socket:
        assert _closed(socket) == (4004, "Conversation not found")


def test_a_refused_socket_writes_no_error_to_the_server_log(
    server: ServerProcess, client: httpx.Client
) -> None:
    with server.socket(str(uuid.uuid4())) as socket:
        _closed(socket)
    # A request after the refusal: its log line comes after anything the refusal logged.
    marker = f"/api/conversations/{uuid.uuid4()}"
    client.get(marker)
    wait_until(lambda: marker in server.log(), what="the marker request in the log")
    assert "without completing handshake" not in server.log()


def test_unknown_after_event_is_refused_400(server: ServerProcess, conversation_id: str) -> None:
    with pytest.raises(InvalidStatus) as refused:
        server.socket(conversation_id, after="no-such-event")
    assert refused.value.response.status_code == 400


def test_resend_all_that_is_not_a_boolean_is_refused_400_naming_it(
    server: ServerProcess, conversation_id: str
) -> None:
    with pytest.raises(InvalidStatus) as refused:
        server.socket(conversation_id, resend_all="garbage")
    assert refused.value.response.status_code == 400
    assert b"resend_all" in (refused.value.response.body or b"")


def test_resend_all_given_as_1_replays_from_the_first_event(
    server: ServerProcess, client: httpx.Client, conversation_id: str
) -> None:
    first = _log(client, conversation_id)[0]
    with server.socket(conversation_id, resend_all="1") as socket:
        assert socket.next()["id"] == first["id"]


def test_deleting_the_conversation_closes_its_sockets_with_4004(
    server: ServerProcess, client: httpx.Client, conversation_id: str
) -> None:
    with server.socket(conversation_id) as socket:
        client.delete(f"/api/conversations/{conversation_id}")
        assert _closed(socket) == (4004, "conversation closed")


def test_the_first_frame_is_a_full_state_snapshot_not_in_the_log(
    server: ServerProcess, client: httpx.Client, conversation_id: str
) -> None:
    with server.socket(conversation_id, resend_all="true") as socket:
        first = socket.frame()
        assert socket.next()["kind"] == "SystemPromptEvent"
    assert (first["kind"], first["key"]) == ("ConversationStateUpdateEvent", "full_state")
    assert first["value"]["id"] == str(uuid.UUID(conversation_id))
    assert first["value"]["execution_status"] == "idle"
    assert first["id"] not in [e["id"] for e in _log(client, conversation_id)]


def test_a_finished_run_is_followed_by_a_snapshot_saying_so(
    server: ServerProcess,
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("done")])
    with server.socket(conversation_id) as socket:
        _send(client, conversation_id, "hi", run=True)
        socket.until(_finished)
        snapshot = socket.frame()
    assert snapshot["key"] == "full_state"
    assert snapshot["value"]["execution_status"] == "finished"
    usage = snapshot["value"]["stats"]["usage_to_metrics"]
    assert [m["model_name"] for m in usage.values()] == [f"openai/{agent_model}"]


def test_resend_mode_since_replays_from_that_time(
    server: ServerProcess, client: httpx.Client, conversation_id: str
) -> None:
    _send(client, conversation_id, "one")
    _send(client, conversation_id, "two")
    log = _log(client, conversation_id)
    with server.socket(
        conversation_id, resend_mode="since", after_timestamp=log[-2]["timestamp"]
    ) as socket:
        replayed = [socket.next()["id"], socket.next()["id"]]
    assert replayed == [log[-2]["id"], log[-1]["id"]]


def test_resend_mode_all_replays_from_the_first_event(
    server: ServerProcess, client: httpx.Client, conversation_id: str
) -> None:
    first = _log(client, conversation_id)[0]
    with server.socket(conversation_id, resend_mode="all") as socket:
        assert socket.next()["id"] == first["id"]


def test_resend_mode_since_without_a_time_is_refused_400_naming_it(
    server: ServerProcess, conversation_id: str
) -> None:
    with pytest.raises(InvalidStatus) as refused:
        server.socket(conversation_id, resend_mode="since")
    assert refused.value.response.status_code == 400
    assert b"after_timestamp" in (refused.value.response.body or b"")


def test_a_poll_between_runs_sends_the_snapshot_again(
    server: ServerProcess,
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    conversation_id: str,
) -> None:
    # The reference's client waits for a snapshot that comes after its POST /run was
    # answered, and polls GET /{id} meanwhile: a run quicker than that answer is not lost.
    fake_llm.script(agent_model, [FakeReply.text("hello")])
    with server.socket(conversation_id) as socket:
        socket.frame()  # the snapshot on open
        _send(client, conversation_id, "hi", run=True)
        socket.until(_finished)
        assert socket.frame()["key"] == "full_state"  # the run's own

        assert client.get(f"/api/conversations/{conversation_id}").status_code == 200
        again = socket.frame()
    assert (again["key"], again["value"]["execution_status"]) == ("full_state", "finished")
