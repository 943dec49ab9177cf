"""Fake LLM responders for the browser tests and the screenshot script."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from openhands.sdk.testing import FakeReply

SESSION_KEY = "e2e-session-key"
"""The session API key of the protected server fixture."""

JUDGE_MARKER = "strict, independent judge"
"""A phrase of the judge's system prompt: how a responder tells judge calls from agent calls."""

AGENT_MODEL = "gpt-4o-mini"
JUDGE_MODEL = "gpt-4o"
"""Model names litellm's bundled price list knows, so a scripted goal costs real (fake) money."""

Responder = Callable[[dict[str, Any]], FakeReply]


def agent_and_judge(
    agent_reply: FakeReply, complete: bool, proven: int = 2, total: int = 2
) -> Responder:
    """A responder answering the agent with `agent_reply` and the judge with a verdict.

    The page's goal uses the default judge (a copy of the agent's LLM, same model name), so
    one responder tells them apart by the judge's system prompt.
    """
    answer = verdict(proven, total, complete, "" if complete else "more proof")

    def respond(body: dict[str, Any]) -> FakeReply:
        if JUDGE_MARKER in json.dumps(body.get("messages", [])[:1]):
            return answer
        return agent_reply

    return respond


def scripted(agent: Sequence[FakeReply], judge: Sequence[FakeReply]) -> Responder:
    """A responder for one model playing both parts: the agent's replies in turn, and the
    judge's (told apart by the judge's system prompt) in turn."""
    agent_turn, judge_turn = in_turn(agent), in_turn(judge)

    def respond(body: dict[str, Any]) -> FakeReply:
        if JUDGE_MARKER in json.dumps(body.get("messages", [])[:1]):
            return judge_turn(body)
        return agent_turn(body)

    return respond


def verdict(
    proven: int,
    total: int,
    complete: bool,
    missing: str = "",
    requirements: Sequence[str] = (),
) -> FakeReply:
    """The judge's JSON answer: the first `proven` of `total` requirements satisfied.

    `requirements` names them (else "requirement 1", ...); the answer has token counts, so a
    priced model (JUDGE_MODEL) costs something.
    """
    names = list(requirements) or [f"requirement {i + 1}" for i in range(total)]
    reqs = [
        {
            "text": names[i],
            "satisfied": i < proven,
            "evidence": "seen in the transcript" if i < proven else "no proof yet",
        }
        for i in range(total)
    ]
    body = {
        "score": proven / total,
        "complete": complete,
        "missing": [] if complete else [missing or "more proof"],
        "requirements": reqs,
    }
    return FakeReply.text(json.dumps(body), prompt_tokens=1800, completion_tokens=160)


def held(reply: FakeReply, release: threading.Event, timeout: float) -> Responder:
    """A responder answering `reply` once `release` is set (at most `timeout` seconds): the
    test sets it when the page has shown what it shows while the call is under way, so the
    page is seen mid-call without guessing how long a call must last."""

    def respond(body: dict[str, Any]) -> FakeReply:
        release.wait(timeout)
        return reply

    return respond


def in_turn(replies: Sequence[FakeReply]) -> Responder:
    """A responder giving `replies` one per call, then the last one again and again."""
    lock = threading.Lock()
    calls = [0]

    def respond(body: dict[str, Any]) -> FakeReply:
        with lock:
            index = min(calls[0], len(replies) - 1)
            calls[0] += 1
        return replies[index]

    return respond


def work(command: str, summary: str) -> list[FakeReply]:
    """One agent run: a terminal call running `command`, then `summary` (which ends the run)."""
    return [
        FakeReply.tool_call(
            "terminal", {"command": command}, prompt_tokens=2400, completion_tokens=90
        ),
        FakeReply.text(summary, prompt_tokens=2600, completion_tokens=120),
    ]


REQUIREMENTS = (
    "`slugify()` lower-cases and joins words with dashes",
    "tests in tests/test_slug.py pass",
    "README documents `slugify()`",
)
"""The requirements the scripted judge names in the screenshots and progress tests."""
