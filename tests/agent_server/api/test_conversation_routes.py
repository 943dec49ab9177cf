"""REST routes under /api/conversations, against a live server and the fake LLM."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import HeldReplies, ServerProcess, llm_spec, unique, wait_until


def _status(client: httpx.Client, cid: str) -> str:
    return client.get(f"/api/conversations/{cid}").json()["execution_status"]


def test_create_returns_201_and_redacts_the_api_key(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    body = {"agent": {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model)}}
    response = client.post("/api/conversations", json=body)
    assert response.status_code == 201
    info = response.json()
    assert info["agent"]["llm"]["api_key"] is None
    assert info["execution_status"] == "idle"
    assert uuid.UUID(info["id"])


def test_default_workspace_is_named_after_the_conversation(
    client: httpx.Client, conversation_id: str, server: ServerProcess
) -> None:
    info = client.get(f"/api/conversations/{conversation_id}").json()
    assert info["workspace"]["working_dir"].endswith(uuid.UUID(conversation_id).hex)


def test_create_with_an_existing_id_returns_200_and_the_same_conversation(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    cid = str(uuid.uuid4())
    body = {
        "agent": {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model)},
        "conversation_id": cid,
    }
    assert client.post("/api/conversations", json=body).status_code == 201
    again = client.post("/api/conversations", json=body)
    assert again.status_code == 200
    assert again.json()["id"] == cid


def test_unknown_tool_is_422_naming_the_tools_field(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    body = {
        "agent": {
            "kind": "Agent",
            "llm": llm_spec(fake_llm, agent_model),
            "tools": [{"name": "no_such_tool"}],
        }
    }
    response = client.post("/api/conversations", json=body)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "agent", "tools"]
    assert "no_such_tool" in response.json()["message"]


def test_tool_params_the_tool_cannot_take_are_422_naming_the_tool(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    # `context` clashed with the factory's own argument (TypeError): this answered 500.
    tools = [{"name": "terminal", "params": {"context": 1}}]
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model), "tools": tools}
    response = client.post("/api/conversations", json={"agent": agent})
    assert response.status_code == 422, response.text
    assert "Tool 'terminal' cannot be built with params" in response.json()["message"]
    assert response.json()["detail"][0]["loc"] == ["body", "agent", "tools"]


def test_tool_param_values_the_tool_refuses_are_422_naming_the_param(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    # A negative timeout used to be accepted and only failed on the agent's first command.
    for params, named in (({"timeout": -1}, "timeout"), ({"timeout": None}, "timeout")):
        tools = [{"name": "terminal", "params": params}]
        agent = {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model), "tools": tools}
        response = client.post("/api/conversations", json={"agent": agent})
        assert response.status_code == 422, response.text
        assert f"Bad terminal params ({named}:" in response.json()["message"]
        assert response.json()["detail"][0]["loc"] == ["body", "agent", "tools"]


def test_working_dir_that_cannot_be_resolved_is_422_naming_it(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    # Path.expanduser raised RuntimeError inside validation (pydantic let it through): 500.
    workspace = {"kind": "LocalWorkspace", "working_dir": "~no-such-user-4f1c/work"}
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model)}
    response = client.post("/api/conversations", json={"agent": agent, "workspace": workspace})
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "workspace", "working_dir"]


def test_missing_agent_is_422_naming_the_field(client: httpx.Client) -> None:
    response = client.post("/api/conversations", json={})
    assert response.status_code == 422
    assert ["body", "agent"] in [d["loc"] for d in response.json()["detail"]]


def test_hook_timeout_past_a_day_is_422_naming_it(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    # 1e9 s used to be accepted, then overflowed the OS wait: every message answered 500.
    hooks = {"UserPromptSubmit": [{"hooks": [{"command": "true", "timeout": 1e9}]}]}
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model)}
    response = client.post("/api/conversations", json={"agent": agent, "hook_config": hooks})
    assert response.status_code == 422, response.text
    loc = ["body", "hook_config", "user_prompt_submit", 0, "hooks", 0, "timeout"]
    assert response.json()["detail"][0]["loc"] == loc


def test_a_nul_byte_in_a_hook_command_is_422_naming_it_and_creates_nothing(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    # It used to be accepted at create; then every message answered 500.
    hooks = {"UserPromptSubmit": [{"hooks": [{"command": "echo a\u0000b"}]}]}
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model)}
    before = client.get("/api/conversations/count").json()
    response = client.post("/api/conversations", json={"agent": agent, "hook_config": hooks})
    assert response.status_code == 422, response.text
    loc = ["body", "hook_config", "user_prompt_submit", 0, "hooks", 0, "command"]
    assert response.json()["detail"][0]["loc"] == loc
    assert client.get("/api/conversations/count").json() == before


def test_llm_retry_wait_past_an_hour_is_422_naming_it(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    # Such a backoff used to sleep for centuries in a worker thread no pause or delete reaches.
    llm = llm_spec(fake_llm, agent_model, retry_min_wait=1e9, retry_max_wait=1e9)
    response = client.post("/api/conversations", json={"agent": {"kind": "Agent", "llm": llm}})
    assert response.status_code == 422, response.text
    locs = [d["loc"] for d in response.json()["detail"]]
    assert ["body", "agent", "llm", "retry_min_wait"] in locs


def test_validation_errors_never_echo_the_api_key(
    client: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    llm = {**llm_spec(fake_llm, "m"), "api_key": "super-secret-value", "temperature": 9}
    response = client.post("/api/conversations", json={"agent": {"kind": "Agent", "llm": llm}})
    assert response.status_code == 422
    assert "super-secret-value" not in response.text
    assert "temperature" in response.json()["message"]


@pytest.mark.slow
def test_initial_message_is_sent_and_run(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("hello back")])
    body = {
        "agent": {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model)},
        "initial_message": {"role": "user", "content": [{"type": "text", "text": "hello"}]},
    }
    cid = client.post("/api/conversations", json=body).json()["id"]
    wait_until(lambda: _status(client, cid) == "finished", what="the run to finish")
    info = client.get(f"/api/conversations/{cid}").json()
    assert info["title"] == "hello"


def test_get_unknown_conversation_is_404(client: httpx.Client) -> None:
    assert client.get(f"/api/conversations/{uuid.uuid4()}").status_code == 404


def test_delete_forgets_the_conversation_and_its_files(
    client: httpx.Client, conversation_id: str, server: ServerProcess
) -> None:
    folder = server.conversations / uuid.UUID(conversation_id).hex
    assert folder.is_dir()
    answer = client.delete(f"/api/conversations/{conversation_id}").json()
    assert answer["success"] is True and str(folder) in answer["removed"]
    assert client.get(f"/api/conversations/{conversation_id}").status_code == 404
    assert not folder.exists()
    assert client.delete(f"/api/conversations/{conversation_id}").status_code == 404


def test_delete_removes_the_working_dir_the_server_made(
    client: httpx.Client, conversation_id: str, server: ServerProcess
) -> None:
    info = client.get(f"/api/conversations/{conversation_id}").json()
    workspace = Path(info["workspace"]["working_dir"])
    (workspace / "notes.txt").write_text("made by the agent")
    assert client.delete(f"/api/conversations/{conversation_id}").status_code == 200
    assert not workspace.exists()


def test_delete_keeps_a_working_dir_the_client_chose(
    client: httpx.Client, make_conversation: Callable[..., str], server: ServerProcess
) -> None:
    chosen = server.conversations.parent / f"chosen-{uuid.uuid4().hex[:8]}"
    cid = make_conversation(workspace={"kind": "LocalWorkspace", "working_dir": str(chosen)})
    (chosen / "notes.txt").write_text("mine")
    assert client.delete(f"/api/conversations/{cid}").status_code == 200
    assert (chosen / "notes.txt").read_text() == "mine"


def test_a_message_in_flight_when_its_conversation_is_deleted_is_404(
    client: httpx.Client,
    server: ServerProcess,
    make_conversation: Callable[..., str],
    tmp_path: Path,
) -> None:
    cid = uuid.uuid4()
    work = tmp_path / "work"  # the client's folder: it outlives the delete
    in_hook, release = work / "in-hook", work / "release"
    # The hook holds the message until the delete has removed the conversation's folder
    # (it waits in its workspace: a sandboxed hook cannot see the conversations folder).
    command = "touch in-hook; while [ ! -e release ]; do sleep 0.02; done"
    hooks = {"UserPromptSubmit": [{"hooks": [{"command": command}]}]}
    make_conversation(
        conversation_id=str(cid),
        hook_config=hooks,
        workspace={"kind": "LocalWorkspace", "working_dir": str(work)},
    )
    answers: list[httpx.Response] = []

    def send() -> None:
        body = {"content": [{"type": "text", "text": "hi"}]}
        with server.client() as http:
            answers.append(http.post(f"/api/conversations/{cid}/events", json=body))

    sender = threading.Thread(target=send)
    sender.start()
    wait_until(in_hook.exists, what="the message to reach its hook")
    assert client.delete(f"/api/conversations/{cid}").status_code == 200
    assert not (server.conversations / cid.hex).exists()
    release.touch()
    sender.join()
    assert answers[0].status_code == 404, answers[0].text
    assert "deleted" in answers[0].json()["message"]


def test_search_pages_through_every_conversation_once(
    client: httpx.Client, make_conversation: Callable[..., str]
) -> None:
    mine = {make_conversation() for _ in range(3)}
    seen: list[str] = []
    page_id = None
    while True:
        params = {"limit": 1, **({"page_id": page_id} if page_id else {})}
        page = client.get("/api/conversations/search", params=params).json()
        assert len(page["items"]) <= 1
        seen += [item["id"] for item in page["items"]]
        page_id = page["next_page_id"]
        if page_id is None:
            break
    assert mine <= set(seen)
    assert len(seen) == len(set(seen))


def test_search_lists_newest_first(
    client: httpx.Client, make_conversation: Callable[..., str]
) -> None:
    first, second = make_conversation(), make_conversation()
    ids = [item["id"] for item in client.get("/api/conversations/search").json()["items"]]
    assert ids.index(second) < ids.index(first)


def test_search_filters_by_status(client: httpx.Client, conversation_id: str) -> None:
    client.post(f"/api/conversations/{conversation_id}/pause")
    paused = client.get("/api/conversations/search", params={"status": "paused"}).json()
    assert conversation_id in [item["id"] for item in paused["items"]]
    assert all(item["execution_status"] == "paused" for item in paused["items"])


def test_search_limit_out_of_range_is_422_naming_limit(client: httpx.Client) -> None:
    response = client.get("/api/conversations/search", params={"limit": 0})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "limit"]


def test_search_with_unknown_page_id_is_400(client: httpx.Client) -> None:
    response = client.get("/api/conversations/search", params={"page_id": str(uuid.uuid4())})
    assert response.status_code == 400


def test_count_grows_with_each_conversation(
    client: httpx.Client, make_conversation: Callable[..., str]
) -> None:
    before = client.get("/api/conversations/count").json()
    make_conversation()
    assert client.get("/api/conversations/count").json() == before + 1


def test_run_while_running_is_409_and_pause_stops_it(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, conversation_id: str
) -> None:
    slow_step = FakeReply.tool_call("think", {"thought": "hmm"}).delayed(1.0)
    fake_llm.script(agent_model, [slow_step, FakeReply.text("never reached")])
    base = f"/api/conversations/{conversation_id}"
    client.post(f"{base}/events", json={"content": [{"type": "text", "text": "go"}]})
    assert client.post(f"{base}/run").status_code == 200
    assert client.post(f"{base}/run").status_code == 409
    assert client.post(f"{base}/pause").status_code == 200
    wait_until(lambda: _status(client, conversation_id) == "paused", what="the pause")


def test_run_then_finished_status(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, conversation_id: str
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("done")])
    base = f"/api/conversations/{conversation_id}"
    client.post(f"{base}/events", json={"content": [{"type": "text", "text": "go"}], "run": True})
    wait_until(lambda: _status(client, conversation_id) == "finished", what="the run")


def test_tools_named_in_the_request_run_in_the_workspace(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, server: ServerProcess
) -> None:
    fake_llm.script(
        agent_model,
        [
            FakeReply.tool_call("terminal", {"command": "echo made-by-agent > proof.txt"}),
            FakeReply.text("done"),
        ],
    )
    workdir = server.conversations.parent / f"ws-{uuid.uuid4().hex[:8]}"
    body = {
        "agent": {
            "kind": "Agent",
            "llm": llm_spec(fake_llm, agent_model),
            "tools": [{"name": "terminal"}, {"name": "file_editor"}],
        },
        "workspace": {"kind": "LocalWorkspace", "working_dir": str(workdir)},
        "initial_message": {"content": [{"type": "text", "text": "make proof.txt"}]},
    }
    response = client.post("/api/conversations", json=body)
    assert response.status_code == 201, response.text
    cid = response.json()["id"]
    wait_until(lambda: _status(client, cid) == "finished", what="the run")
    assert (workdir / "proof.txt").read_text().strip() == "made-by-agent"


@pytest.mark.slow
def test_a_run_still_queued_for_a_worker_thread_is_busy(
    server_root: Path, fake_llm: FakeOpenAIServer
) -> None:
    # One worker thread: while A's held step holds it, B's run waits in the queue.
    process = ServerProcess(server_root / "conversations", env={"OH_MAX_RUN_THREADS": "1"})
    process.start()
    held = HeldReplies(FakeReply.text("a done"))
    try:
        with process.client() as http:
            ids: dict[str, str] = {}
            for name in ("warm-up", "a", "b"):
                model = unique(name)
                if name == "a":
                    fake_llm.set_responder(model, held)
                else:
                    fake_llm.script(model, [FakeReply.text(f"{name} done")])
                body = {"agent": {"kind": "Agent", "llm": llm_spec(fake_llm, model)}}
                ids[name] = http.post("/api/conversations", json=body).json()["id"]
                message = {"content": [{"type": "text", "text": "go"}]}
                http.post(f"/api/conversations/{ids[name]}/events", json=message)
            # The first LLM call imports litellm (seconds): get it out of the way.
            http.post(f"/api/conversations/{ids['warm-up']}/run")
            wait_until(lambda: _status(http, ids["warm-up"]) == "finished", what="the warm-up")

            assert http.post(f"/api/conversations/{ids['a']}/run").status_code == 200
            assert http.post(f"/api/conversations/{ids['b']}/run").status_code == 200
            assert http.post(f"/api/conversations/{ids['b']}/run").status_code == 409
            held.release()
            wait_until(lambda: _status(http, ids["b"]) == "finished", what="b's queued run")
    finally:
        held.release()
        process.stop()
