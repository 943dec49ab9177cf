"""The scripted LLM both servers' agents and goal judges talk to in the interop tests.

It answers from what it is asked, so the same script drives our agent and the reference's:
a request without tools is a judge's (or a title's, or a condenser's): a complete verdict.
With tools, the last user message says what to do: "keep working" runs `sleep` after `sleep`
until the run is paused; a question with "interop question" in it (`ask_agent`) is answered
"interop answer" in text; anything else runs `echo hi` once and then answers "done".
"""

from __future__ import annotations

import json
from typing import Any

from openhands.sdk.testing import FakeReply

VERDICT = {"score": 1.0, "complete": True, "missing": ""}
KEEP_WORKING = "keep working"
DONE = "done"
QUESTION = "interop question"
ANSWER = "interop answer"


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def respond(body: dict[str, Any]) -> FakeReply:
    """The reply to one chat-completions request (see the module docstring)."""
    messages: list[dict[str, Any]] = body.get("messages") or []
    if not body.get("tools"):
        return FakeReply.text(json.dumps(VERDICT))
    users = [m for m in messages if m.get("role") == "user"]
    last_user = _text(users[-1]) if users else ""
    last = messages[-1] if messages else {}
    if KEEP_WORKING in last_user:
        return FakeReply.tool_call("terminal", {"command": "sleep 0.3"})
    if QUESTION in last_user:
        return FakeReply.text(ANSWER)
    if last.get("role") == "tool":
        return FakeReply.text(DONE)
    return FakeReply.tool_call("terminal", {"command": "echo hi"})
