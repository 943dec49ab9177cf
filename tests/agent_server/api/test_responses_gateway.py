"""POST /v1/responses driven by the `openai` client, as Codex and newer OpenAI clients call it:
plain and streamed answers, continuing by `previous_response_id`, the server's default model
out of the box, and errors the client raises as its own exception classes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import cast

import httpx
import openai
import pytest
from fastapi.testclient import TestClient
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import unique
from .surface_app import SESSION, surface_client

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::pydantic.warnings.UnsupportedFieldAttributeWarning"),
]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def model() -> str:
    return unique("default")


@pytest.fixture
def app(tmp_path: Path, fake: FakeOpenAIServer, model: str) -> Iterator[TestClient]:
    env = {
        "LLM_MODEL": f"openai/{model}",
        "LLM_BASE_URL": fake.base_url,
        "LLM_API_KEY": "sk-default",
    }
    with surface_client(tmp_path, **env) as http:
        yield http


def _openai(app: TestClient, api_key: str) -> openai.OpenAI:
    """An OpenAI client talking to the in-process app (TestClient is an httpx-style client:
    httpx2, which the openai package drives like httpx)."""
    return openai.OpenAI(
        base_url="http://testserver/v1", api_key=api_key, http_client=cast(httpx.Client, app)
    )


@pytest.fixture
def client(app: TestClient) -> openai.OpenAI:
    return _openai(app, SESSION)


def test_the_default_model_is_listed_out_of_the_box(client: openai.OpenAI) -> None:
    ids = [m.id for m in client.models.list()]

    assert ids == ["openhands_default", "openhands_goal_default"]


def test_no_default_model_without_one(tmp_path: Path) -> None:
    with surface_client(tmp_path) as app:
        assert app.get("/v1/models").json()["data"] == []


def test_a_response_is_the_agents_answer_and_continues_by_its_id(
    client: openai.OpenAI, fake: FakeOpenAIServer, model: str
) -> None:
    fake.script(model, [FakeReply.text("Paris"), FakeReply.text("About 2 million")])

    first = client.responses.create(
        model="openhands_default", input="Capital of France?", instructions="Answer in one word."
    )
    second = client.responses.create(
        model="openhands_default",
        input=[{"role": "user", "content": [{"type": "input_text", "text": "Its population?"}]}],
        previous_response_id=first.id,
    )

    assert first.output_text == "Paris" and first.status == "completed"
    assert second.output_text == "About 2 million"
    requests = fake.requests_for(model)
    assert "Answer in one word." in str(requests[0]["messages"][0])
    history = [(m["role"], str(m["content"])) for m in requests[1]["messages"][1:]]
    assert history == [
        ("user", "Capital of France?"),
        ("assistant", "Paris"),
        ("user", "Its population?"),
    ]


def test_a_streamed_response_shows_the_work_then_the_answer(
    client: openai.OpenAI, fake: FakeOpenAIServer, model: str
) -> None:
    fake.script(
        model,
        [FakeReply.tool_call("think", {"thought": "plan the answer"}), FakeReply.text("Done.")],
    )

    with client.responses.stream(model="openhands_default", input="Do it") as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_response()

    assert final.output_text == "Done." and final.status == "completed"
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert "response.output_text.delta" in kinds
    reasoning = [item for item in final.output if item.type == "reasoning"]
    assert reasoning and "think: plan the answer" in reasoning[0].summary[0].text


def test_errors_are_the_clients_own_exceptions(client: openai.OpenAI, app: TestClient) -> None:
    with pytest.raises(openai.NotFoundError) as unknown:
        client.responses.create(model="no_such_model", input="hi")
    with pytest.raises(openai.UnprocessableEntityError) as invalid:
        client.responses.create(model="openhands_default", input=[])
    unauthorized = _openai(app, "wrong")
    app.headers.pop("X-Session-API-Key")
    with pytest.raises(openai.AuthenticationError):
        unauthorized.responses.create(model="openhands_default", input="hi")

    assert "openhands_default" in unknown.value.message  # it names the models there are
    assert invalid.value.body["param"] == "input"  # type: ignore[index]
