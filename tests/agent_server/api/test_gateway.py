"""The OpenAI-compatible gateway on a real server, driven by the official `openai` client."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import ServerProcess, unique, wait_until

pytestmark = pytest.mark.slow

SESSION = "gateway-session-key"
SECRET_KEY = "gateway-sealing-key-" + "g" * 40
PROFILE_KEY = "sk-gateway-profile-4b7e"
JUDGE_KEY = "sk-gateway-judge-81c0"
HEADER = "X-OpenHands-ServerConversation-ID"


@pytest.fixture(scope="module")
def gateway_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with a session key, as a gateway is deployed."""
    root = tmp_path_factory.mktemp("gateway")
    env = {"OH_SESSION_API_KEYS": SESSION, "OH_SECRET_KEY": SECRET_KEY}
    process = ServerProcess(root / "conversations", env=env).start()
    yield process
    process.stop()


@pytest.fixture
def rest(gateway_server: ServerProcess) -> Iterator[httpx.Client]:
    with gateway_server.client() as client:
        yield client


@pytest.fixture
def client(gateway_server: ServerProcess) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(
        api_key=SESSION, base_url=f"{gateway_server.url}/v1", max_retries=0, timeout=120
    ) as api:
        yield api


def _profile(rest: httpx.Client, fake: FakeOpenAIServer, key: str = PROFILE_KEY) -> str:
    """A new profile whose model only this test scripts (the fake wants the profile's key)."""
    model = unique("gw")
    fake.require_api_key(key, model)
    llm = {"model": f"openai/{model}", "base_url": fake.base_url, "api_key": key, "num_retries": 0}
    answer = rest.post(f"/api/profiles/{model}", json={"llm": llm})
    assert answer.status_code == 201, answer.text
    return model


def _judge_profile(rest: httpx.Client, fake: FakeOpenAIServer, complete: bool) -> str:
    name = _profile(rest, fake, JUDGE_KEY)
    verdict = {"score": 1.0 if complete else 0.3, "complete": complete, "missing": "proof"}
    fake.set_responder(name, lambda body: FakeReply.text(json.dumps(verdict)))
    return name


def _ask(text: str) -> list[Any]:
    return [{"role": "user", "content": text}]


def test_models_lists_a_plain_and_a_goal_model_per_profile(
    client: openai.OpenAI, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)

    ids = [model.id for model in client.models.list().data]

    assert f"openhands_{profile}" in ids and f"openhands_goal_{profile}" in ids


def test_the_session_key_is_the_bearer_and_nothing_else_opens(
    gateway_server: ServerProcess,
) -> None:
    url = f"{gateway_server.url}/v1"
    with (
        openai.OpenAI(api_key="wrong", base_url=url, max_retries=0) as bad,
        pytest.raises(openai.AuthenticationError),
    ):
        bad.models.list()
    # the bearer form is only for /v1: the native routes keep their header
    bearer = {"Authorization": f"Bearer {SESSION}"}
    assert httpx.get(f"{gateway_server.url}/api/settings", headers=bearer).status_code == 401


def test_a_plain_request_answers_with_the_agents_reply_and_its_conversation(
    client: openai.OpenAI, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)
    fake_llm.script(profile, [FakeReply.text("42", prompt_tokens=11, completion_tokens=3)])

    raw = client.chat.completions.with_raw_response.create(
        model=f"openhands_{profile}",
        messages=[
            {"role": "system", "content": "Answer in digits."},
            {"role": "user", "content": "What is six times seven?"},
        ],
    )
    completion = raw.parse()

    assert completion.choices[0].message.content == "42"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (11, 3)
    conversation_id = uuid.UUID(raw.headers[HEADER])
    info = rest.get(f"/api/conversations/{conversation_id}")
    assert info.status_code == 200 and info.json()["execution_status"] == "finished"
    system_prompt = fake_llm.requests_for(profile)[0]["messages"][0]["content"]
    assert "Answer in digits." in json.dumps(system_prompt)


def test_a_streamed_answer_shows_the_agents_work_then_the_answer(
    client: openai.OpenAI, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)
    fake_llm.script(
        profile,
        [
            FakeReply.tool_call("terminal", {"command": "echo streamed"}, prompt_tokens=5),
            FakeReply.text("all done", prompt_tokens=7, completion_tokens=2),
        ],
    )

    stream = client.chat.completions.create(
        model=f"openhands_{profile}",
        messages=_ask("Run echo, then tell me."),
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)

    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    progress = "".join(
        getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices
    )
    finishes = [
        c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason
    ]
    usage = [c.usage for c in chunks if c.usage is not None]
    assert content == "all done"
    assert "terminal: echo streamed" in progress
    assert finishes == ["stop"]
    assert [(u.prompt_tokens, u.completion_tokens) for u in usage] == [(12, 2)]


def test_the_conversation_header_continues_the_same_conversation(
    client: openai.OpenAI, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)
    fake_llm.script(profile, [FakeReply.text("first answer"), FakeReply.text("second answer")])
    model = f"openhands_{profile}"

    first = client.chat.completions.with_raw_response.create(
        model=model, messages=_ask("remember the word tangerine")
    )
    conversation_id = first.headers[HEADER]
    second = client.chat.completions.with_raw_response.create(
        model=model,
        messages=_ask("which word?"),
        extra_headers={HEADER: conversation_id},
    )

    assert second.headers[HEADER] == conversation_id
    assert second.parse().choices[0].message.content == "second answer"
    history = json.dumps(fake_llm.requests_for(profile)[-1]["messages"])
    assert "tangerine" in history and "first answer" in history


def test_a_new_conversation_gets_the_earlier_turns_of_the_request(
    client: openai.OpenAI, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)
    fake_llm.script(profile, [FakeReply.text("it was kumquat")])

    client.chat.completions.create(
        model=f"openhands_{profile}",
        messages=[
            {"role": "user", "content": "the fruit is kumquat"},
            {"role": "assistant", "content": "noted"},
            {"role": "user", "content": "which fruit?"},
        ],
    )

    sent = json.dumps(fake_llm.requests_for(profile)[0]["messages"])
    assert "kumquat" in sent and "which fruit?" in sent


def test_a_goal_answers_only_once_verify_passes_and_the_judge_agrees(
    client: openai.OpenAI, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)
    judge = _judge_profile(rest, fake_llm, complete=True)  # fooled every time: verify decides
    fake_llm.script(
        profile,
        [
            FakeReply.text("I made it (I did not)"),
            FakeReply.tool_call("terminal", {"command": "touch done.txt"}),
            FakeReply.text("done.txt exists now"),
        ],
    )

    stream = client.chat.completions.create(
        model=f"openhands_{profile}",
        messages=_ask("Create done.txt"),
        stream=True,
        extra_body={
            "openhands_goal": {"verify": "test -f done.txt", "judge_profile": judge},
        },
    )
    chunks = list(stream)

    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    progress = "".join(
        getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices
    )
    last = chunks[-1]
    goal = (last.model_extra or {})["openhands_goal"]
    assert content == "done.txt exists now"
    assert goal["status"] == "complete" and goal["iteration"] == 2
    assert "Round 1: verify exited 1" in progress
    assert "Goal complete after 2 round(s)" in progress
    assert last.choices[0].finish_reason == "stop"


def test_a_goal_model_that_reaches_its_cap_answers_with_finish_reason_length(
    client: openai.OpenAI, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)
    judge = _judge_profile(rest, fake_llm, complete=False)
    fake_llm.script(profile, [FakeReply.text("tried once")])

    completion = client.chat.completions.create(
        model=f"openhands_goal_{profile}",
        messages=_ask("Prove the theorem"),
        extra_body={"openhands_goal": {"max_iterations": 1, "judge_profile": judge}},
    )

    assert completion.choices[0].message.content == "tried once"
    assert completion.choices[0].finish_reason == "length"
    goal = (completion.model_extra or {})["openhands_goal"]
    assert goal["status"] == "capped" and goal["objective"] == "Prove the theorem"


def test_bad_input_is_a_4xx_naming_what_is_wrong(
    client: openai.OpenAI, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)
    model = f"openhands_{profile}"

    with pytest.raises(openai.NotFoundError, match="GET /v1/models"):
        client.chat.completions.create(model="gpt-4o", messages=_ask("hi"))
    with pytest.raises(openai.UnprocessableEntityError, match="messages"):
        client.chat.completions.create(model=model, messages=[])
    with pytest.raises(openai.UnprocessableEntityError, match="role 'user'"):
        client.chat.completions.create(
            model=model, messages=[{"role": "system", "content": "only this"}]
        )
    with pytest.raises(openai.UnprocessableEntityError, match=HEADER):
        client.chat.completions.create(
            model=model, messages=_ask("hi"), extra_headers={HEADER: "not-a-uuid"}
        )
    with pytest.raises(openai.UnprocessableEntityError, match="max_iterations"):
        client.chat.completions.create(
            model=model, messages=_ask("hi"), extra_body={"openhands_goal": {"max_iterations": 0}}
        )
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(
            model=model, messages=_ask("hi"), extra_headers={HEADER: str(uuid.uuid4())}
        )
    assert fake_llm.requests_for(profile) == []  # nothing reached the agent


def test_a_failing_agent_run_is_an_error_for_the_client(
    client: openai.OpenAI, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)
    fake_llm.script(profile, [FakeReply.error(400, "the provider refuses this request")])

    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(model=f"openhands_{profile}", messages=_ask("hi"))

    assert caught.value.status_code == 502 and "error" in caught.value.message


def test_a_deleted_conversation_cannot_be_continued(
    client: openai.OpenAI, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)
    fake_llm.script(profile, [FakeReply.text("once")])
    model = f"openhands_{profile}"
    raw = client.chat.completions.with_raw_response.create(model=model, messages=_ask("hi"))
    conversation_id = raw.headers[HEADER]

    assert rest.delete(f"/api/conversations/{conversation_id}").status_code == 200
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(
            model=model, messages=_ask("again"), extra_headers={HEADER: conversation_id}
        )


def test_a_gateway_conversation_continues_after_a_restart(
    tmp_path: Path, fake_llm: FakeOpenAIServer
) -> None:
    env = {"OH_SESSION_API_KEYS": SESSION, "OH_SECRET_KEY": SECRET_KEY}
    server = ServerProcess(tmp_path / "conversations", env=env).start()
    try:
        with server.client() as rest:
            profile = _profile(rest, fake_llm)
        fake_llm.script(profile, [FakeReply.text("before"), FakeReply.text("after")])
        with openai.OpenAI(api_key=SESSION, base_url=f"{server.url}/v1", max_retries=0) as api:
            raw = api.chat.completions.with_raw_response.create(
                model=f"openhands_{profile}", messages=_ask("the password is swordfish")
            )
        conversation_id = raw.headers[HEADER]
        server.kill()
        server = ServerProcess(tmp_path / "conversations", env=env)
        server.start()
        with openai.OpenAI(api_key=SESSION, base_url=f"{server.url}/v1", max_retries=0) as api:
            again = api.chat.completions.create(
                model=f"openhands_{profile}",
                messages=_ask("what was it?"),
                extra_headers={HEADER: conversation_id},
            )
    finally:
        server.stop()

    assert again.choices[0].message.content == "after"
    # the sealed profile key reached the provider after the restart too (else: a 401 error)
    assert "swordfish" in json.dumps(fake_llm.requests_for(profile)[-1]["messages"])


def test_the_agent_goes_on_when_a_streaming_client_goes_away(
    gateway_server: ServerProcess, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)
    fake_llm.script(profile, [FakeReply.text("finished anyway").delayed(1.0)])
    body = {"model": f"openhands_{profile}", "messages": _ask("take your time"), "stream": True}

    headers = {"Authorization": f"Bearer {SESSION}"}
    with httpx.stream(
        "POST", f"{gateway_server.url}/v1/chat/completions", json=body, headers=headers
    ) as answer:
        conversation_id = answer.headers[HEADER]
        first = next(answer.iter_lines())  # the role chunk; then the client leaves
    assert first.startswith("data: ")

    def finished() -> bool:
        info = rest.get(f"/api/conversations/{conversation_id}").json()
        return info["execution_status"] == "finished"

    wait_until(finished, what="the run the client left")
    assert "Traceback" not in gateway_server.log()


def test_a_call_waiting_for_approval_is_an_error_saying_how_to_go_on(
    client: openai.OpenAI, rest: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    profile = _profile(rest, fake_llm)
    think = FakeReply.tool_call("think", {"thought": "plan"})
    fake_llm.script(profile, [FakeReply.text("hello"), think, FakeReply.text("planned")])
    model = f"openhands_{profile}"
    raw = client.chat.completions.with_raw_response.create(model=model, messages=_ask("hi"))
    cid = raw.headers[HEADER]
    always = {"policy": {"kind": "AlwaysConfirm"}}
    assert rest.post(f"/api/conversations/{cid}/confirmation_policy", json=always).is_success

    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(
            model=model, messages=_ask("plan it"), extra_headers={HEADER: cid}
        )
    status = rest.get(f"/api/conversations/{cid}").json()["execution_status"]
    approve = {"accept": True}
    answer = rest.post(f"/api/conversations/{cid}/events/respond_to_confirmation", json=approve)

    assert caught.value.status_code == 502
    assert "respond_to_confirmation" in caught.value.message
    assert status == "waiting_for_confirmation" and answer.status_code == 200
    wait_until(
        lambda: rest.get(f"/api/conversations/{cid}").json()["execution_status"] == "finished",
        what="the approved run",
    )
    assert fake_llm.remaining(profile) == 0
