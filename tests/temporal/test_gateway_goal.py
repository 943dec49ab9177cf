"""A goal sent through the OpenAI-compatible gateway runs on Temporal like any other goal: the
answer comes once the worker's judge agrees, and the stream shows its rounds."""

from __future__ import annotations

from collections.abc import Callable

import openai
from agent_server.harness import ServerProcess, unique, verdict
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from .harness import Worker


def _save_profile(server: ServerProcess, fake_llm: FakeOpenAIServer, name: str) -> None:
    llm = {"model": f"openai/{name}", "base_url": fake_llm.base_url, "api_key": "k"}
    with server.client() as client:
        assert client.post(f"/api/profiles/{name}", json={"llm": llm}).status_code == 201


def test_a_gateway_goal_runs_as_a_workflow(
    agent_server: ServerProcess,
    workers: Callable[..., Worker],
    fake_llm: FakeOpenAIServer,
) -> None:
    workers()
    agent, judge = unique("agent"), unique("judge")
    _save_profile(agent_server, fake_llm, agent)
    _save_profile(agent_server, fake_llm, judge)
    fake_llm.script(agent, [FakeReply.text("first try"), FakeReply.text("fixed it")])
    fake_llm.script(judge, [verdict(False, "the fix"), verdict(True)])

    with openai.OpenAI(
        api_key="none", base_url=f"{agent_server.url}/v1", max_retries=0, timeout=180
    ) as client:
        chunks = list(
            client.chat.completions.create(
                model=f"openhands_goal_{agent}",
                messages=[{"role": "user", "content": "fix it"}],
                stream=True,
                extra_body={"openhands_goal": {"judge_profile": judge}},
            )
        )

    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    progress = "".join(
        getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices
    )
    goal = (chunks[-1].model_extra or {})["openhands_goal"]
    assert content == "fixed it"
    assert goal["status"] == "complete" and goal["iteration"] == 2
    assert "Round 1:" in progress and "the fix" in progress
    assert goal["objective"] == "fix it"
