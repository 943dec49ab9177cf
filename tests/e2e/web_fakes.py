"""Fake LLM responders for the browser tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from openhands.sdk.testing import FakeReply

SESSION_KEY = "e2e-session-key"
"""The session API key of the protected server fixture."""

JUDGE_MARKER = "strict, independent judge"
"""A phrase of the judge's system prompt: how a responder tells judge calls from agent calls."""


def agent_and_judge(
    agent_reply: FakeReply, complete: bool, proven: int = 2, total: int = 2
) -> Callable[[dict[str, Any]], FakeReply]:
    """A responder answering the agent with `agent_reply` and the judge with a verdict.

    The page's goal uses the default judge (a copy of the agent's LLM, same model name), so
    one responder tells them apart by the judge's system prompt.
    """
    requirements = [
        {"text": f"requirement {i + 1}", "satisfied": i < proven, "evidence": "transcript"}
        for i in range(total)
    ]
    verdict = {
        "score": proven / total,
        "complete": complete,
        "missing": [] if complete else ["more proof"],
        "requirements": requirements,
    }

    def respond(body: dict[str, Any]) -> FakeReply:
        if JUDGE_MARKER in json.dumps(body.get("messages", [])[:1]):
            return FakeReply.text(json.dumps(verdict))
        return agent_reply

    return respond
