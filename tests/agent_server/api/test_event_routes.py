"""REST routes for events: send a message, search with paging and filters, count, get."""

from __future__ import annotations

import uuid

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import wait_until


def _send(client: httpx.Client, cid: str, text: str, *, run: bool = False) -> httpx.Response:
    body = {"role": "user", "content": [{"type": "text", "text": text}], "run": run}
    return client.post(f"/api/conversations/{cid}/events", json=body)


def _search(client: httpx.Client, cid: str, **params: str | int) -> dict:
    response = client.get(f"/api/conversations/{cid}/events/search", params=params)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
def chatty_conversation(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, conversation_id: str
) -> str:
    """A conversation with a system prompt, three user messages and one finished run."""
    fake_llm.script(agent_model, [FakeReply.text("answer")])
    for text in ("one", "two"):
        assert _send(client, conversation_id, text).json() == {"success": True}
    _send(client, conversation_id, "three", run=True)
    # Wait for the `finished` event itself (the status field may change a moment before it).
    wait_until(
        lambda: any(
            e.get("key") == "execution_status" and e.get("value") == "finished"
            for e in _search(client, conversation_id, kind="ConversationStateUpdateEvent")["items"]
        ),
        what="the run's finished event",
    )
    return conversation_id


def test_sent_message_is_stored_as_a_user_message_event(
    client: httpx.Client, conversation_id: str
) -> None:
    _send(client, conversation_id, "hello there")
    items = _search(client, conversation_id, kind="MessageEvent")["items"]
    assert items[-1]["source"] == "user"
    assert items[-1]["llm_message"]["content"][0]["text"] == "hello there"


def test_non_user_role_is_422_naming_role(client: httpx.Client, conversation_id: str) -> None:
    body = {"role": "assistant", "content": [{"type": "text", "text": "x"}]}
    response = client.post(f"/api/conversations/{conversation_id}/events", json=body)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "role"]


def test_blank_message_is_422_naming_content(client: httpx.Client, conversation_id: str) -> None:
    response = _send(client, conversation_id, "   ")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "content"]


def test_message_to_unknown_conversation_is_404(client: httpx.Client) -> None:
    assert _send(client, str(uuid.uuid4()), "hi").status_code == 404


@pytest.mark.slow
def test_search_pages_cover_the_log_in_order_without_repeats(
    client: httpx.Client, chatty_conversation: str
) -> None:
    everything = _search(client, chatty_conversation, limit=100)["items"]
    paged: list[dict] = []
    page_id = None
    while True:
        page = _search(
            client, chatty_conversation, limit=2, **({"page_id": page_id} if page_id else {})
        )
        paged += page["items"]
        page_id = page["next_page_id"]
        if page_id is None:
            break
    assert [e["id"] for e in paged] == [e["id"] for e in everything]


def test_search_newest_first(client: httpx.Client, chatty_conversation: str) -> None:
    ascending = _search(client, chatty_conversation)["items"]
    descending = _search(client, chatty_conversation, sort_order="TIMESTAMP_DESC")["items"]
    assert [e["id"] for e in descending] == [e["id"] for e in reversed(ascending)]


def test_search_newest_first_pages(client: httpx.Client, chatty_conversation: str) -> None:
    first = _search(client, chatty_conversation, sort_order="TIMESTAMP_DESC", limit=3)
    second = _search(
        client,
        chatty_conversation,
        sort_order="TIMESTAMP_DESC",
        limit=3,
        page_id=first["next_page_id"],
    )
    everything = _search(client, chatty_conversation, sort_order="TIMESTAMP_DESC")["items"]
    assert [e["id"] for e in first["items"] + second["items"]] == [e["id"] for e in everything[:6]]


def test_search_filters_by_kind_and_keeps_subclass_fields(
    client: httpx.Client, chatty_conversation: str
) -> None:
    items = _search(client, chatty_conversation, kind="MessageEvent")["items"]
    assert [e["llm_message"]["content"][0]["text"] for e in items] == [
        "one",
        "two",
        "three",
        "answer",
    ]


def test_search_filters_by_source(client: httpx.Client, chatty_conversation: str) -> None:
    items = _search(client, chatty_conversation, source="agent", kind="MessageEvent")["items"]
    assert [e["llm_message"]["content"][0]["text"] for e in items] == ["answer"]


def test_kind_filter_pages(client: httpx.Client, chatty_conversation: str) -> None:
    first = _search(client, chatty_conversation, kind="MessageEvent", limit=3)
    second = _search(
        client, chatty_conversation, kind="MessageEvent", limit=3, page_id=first["next_page_id"]
    )
    assert len(first["items"]) == 3
    assert [e["llm_message"]["content"][0]["text"] for e in second["items"]] == ["answer"]
    assert second["next_page_id"] is None


def test_unknown_kind_is_422_naming_kind(client: httpx.Client, conversation_id: str) -> None:
    response = client.get(
        f"/api/conversations/{conversation_id}/events/search", params={"kind": "Nope"}
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "kind"]


def test_unknown_source_is_422(client: httpx.Client, conversation_id: str) -> None:
    response = client.get(
        f"/api/conversations/{conversation_id}/events/search", params={"source": "martian"}
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "source"]


def test_unknown_page_id_is_400(client: httpx.Client, conversation_id: str) -> None:
    response = client.get(
        f"/api/conversations/{conversation_id}/events/search", params={"page_id": "nope"}
    )
    assert response.status_code == 400


def test_count_matches_search(client: httpx.Client, chatty_conversation: str) -> None:
    base = f"/api/conversations/{chatty_conversation}/events"
    assert client.get(f"{base}/count").json() == len(_search(client, chatty_conversation)["items"])
    assert client.get(f"{base}/count", params={"kind": "MessageEvent"}).json() == 4


def test_get_event_by_id(client: httpx.Client, chatty_conversation: str) -> None:
    event = _search(client, chatty_conversation, kind="MessageEvent")["items"][0]
    fetched = client.get(f"/api/conversations/{chatty_conversation}/events/{event['id']}")
    assert fetched.json() == event


def test_get_unknown_event_is_404(client: httpx.Client, conversation_id: str) -> None:
    response = client.get(f"/api/conversations/{conversation_id}/events/nope")
    assert response.status_code == 404
