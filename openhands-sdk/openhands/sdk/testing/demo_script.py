"""`DemoScript`: the deterministic agent and judge behind `openhands-fake-llm`.

It answers chat-completion requests of the fake OpenAI server so that a whole goal can be
watched without a model: the agent makes real tool calls and the judge completes the goal in
its second round. Every answer depends only on the request (no hidden state), so any number of
conversations can share one server and a resumed conversation picks up where it stopped.

Who is asking:

- **the judge**: the model name contains `judge` (e.g. `openai/fake-judge`), or the system
  message is the goal judge's prompt (it starts with `JUDGE_PROMPT_START`);
- **the agent**: any other request that offers tools;
- anything else (a title, a question without tools): a one-line text answer.

The agent's script (round 1 before any follow-up from the judge, round 2 after one):

1. `file_editor create hello_goal.py` (a `greet(name)` function), then `terminal python3
   hello_goal.py` (prints `Hello, world!`), then `finish`;
2. `file_editor create test_hello_goal.py` (a pytest-style test that also runs as a script),
   then `terminal python3 test_hello_goal.py` (prints `checks passed: 1`), then `finish`.

A step counts as done when the conversation already holds its tool call, so a resumed run
continues with the next one. Without `file_editor` the files are written with `terminal`;
without `finish` the run ends with a text answer.

The judge derives three requirements from the transcript: `greet()` is defined (`def
greet(` appears), running it printed `Hello, world!`, and the test ran (`checks passed: N`
appears). Only tool *output* contains the last two (the sources compute them), so a file that
was written but never run proves nothing. The score is the share proven; the goal is complete
when all three are, and a verify command that exited non-zero adds a fourth, unmet
requirement. So a goal is `not complete` (score 0.67) after round 1 and `complete` after round
2.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.testing.fake_reply import FakeReply

JUDGE_PROMPT_START = "You are a strict, independent judge."
"""How the goal judge's system prompt begins (`openhands.sdk.conversation.goal.prompts`)."""

FOLLOWUP_START = "The goal is not complete yet"
"""How the goal loop's follow-up to the agent begins: it marks the start of round 2."""

DEMO_PRICE_PER_MILLION = (0.50, 1.50)
"""USD per million input and output tokens the demo reports for each answer (a small real
model's price), so the cost views show figures: `usage.cost`, as some providers send it."""

DEMO_FILE = "hello_goal.py"
DEMO_TEST = "test_hello_goal.py"

DEMO_SOURCE = '''\
"""A greeting, written by openhands-fake-llm's demo script."""


def greet(name: str) -> str:
    return f"Hello, {name}!"


if __name__ == "__main__":
    print(greet("world"))
'''

DEMO_TEST_SOURCE = '''\
"""A test of greet(); runs under pytest, or alone with `python3 test_hello_goal.py`."""

from hello_goal import greet


def test_greet() -> None:
    assert greet("goal") == "Hello, goal!"


if __name__ == "__main__":
    checks = [test_greet]
    for check in checks:
        check()
    print("checks passed: " + str(len(checks)))
'''

NOT_THE_AGENT = (
    "This is openhands-fake-llm: it answers a goal's agent and judge with a fixed demo script "
    "and has nothing else to say."
)

TRANSCRIPT_OPEN = "<transcript>"
"""Where the judge's transcript starts in its user message (the verify result comes before)."""

_VERIFY_EXIT = re.compile(r"exited with code (-?\d+)|timed out")
_TESTS_RAN = re.compile(r"checks passed: [1-9]")


@dataclass(frozen=True)
class DemoStep:
    """One agent step: a tool call (with a short remark) that the script makes once."""

    tool: str
    arguments: dict[str, Any]
    remark: str

    def matches(self, name: str, arguments: dict[str, Any]) -> bool:
        """True when a tool call with `name` and `arguments` is this step."""
        keys = ("command", "path")
        return name == self.tool and all(
            arguments.get(key) == self.arguments.get(key) for key in keys
        )


def _write(path: str, text: str, remark: str, tools: set[str]) -> DemoStep:
    if "file_editor" in tools:
        return DemoStep(
            "file_editor", {"command": "create", "path": path, "file_text": text}, remark
        )
    heredoc = f"cat > {path} <<'OPENHANDS_DEMO_EOF'\n{text}OPENHANDS_DEMO_EOF"
    return DemoStep("terminal", {"command": heredoc}, remark)


def _run(command: str, remark: str) -> DemoStep:
    return DemoStep("terminal", {"command": command}, remark)


def agent_rounds(tools: set[str]) -> tuple[tuple[DemoStep, ...], tuple[DemoStep, ...]]:
    """The agent's two rounds of steps, given the tools the request offers."""
    first = (
        _write(DEMO_FILE, DEMO_SOURCE, f"I'll write {DEMO_FILE} with a greet() function.", tools),
        _run(f"python3 {DEMO_FILE}", f"Now I run {DEMO_FILE} to see its greeting."),
    )
    second = (
        _write(
            DEMO_TEST, DEMO_TEST_SOURCE, f"The judge wants a test: I'll add {DEMO_TEST}.", tools
        ),
        _run(f"python3 {DEMO_TEST}", "Running the test to prove greet() works."),
    )
    return first, second


@dataclass(frozen=True)
class Requirement:
    """One requirement the demo judge checks, and the transcript pattern that proves it."""

    text: str
    proof: re.Pattern[str]
    evidence: str


REQUIREMENTS = (
    Requirement(
        f"{DEMO_FILE} defines greet(name)",
        re.compile(re.escape("def greet(")),
        f"the source of {DEMO_FILE} in the transcript",
    ),
    Requirement(
        f"running {DEMO_FILE} prints Hello, world!",
        re.compile(re.escape("Hello, world!")),
        f"the output of python3 {DEMO_FILE}",
    ),
    Requirement(
        "a test of greet() exists and passes",
        _TESTS_RAN,
        f"the output of python3 {DEMO_TEST}",
    ),
)


class DemoScript:
    """A `FakeOpenAIServer` responder playing the demo's agent and judge (see module doc).

    `delay` seconds are waited before each answer (0 answers at once), so a person can watch
    the steps; the answers themselves never depend on it.
    """

    def __init__(self, delay: float = 0.0) -> None:
        """Prepare the script; `delay` must be >= 0."""
        if delay < 0:
            raise InvalidArgumentError(f"delay must be >= 0 seconds, got {delay}")
        self.delay = delay

    def __call__(self, body: dict[str, Any]) -> FakeReply:
        """The reply to one chat-completion request `body`."""
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        tools = _tool_names(body.get("tools"))
        if is_judge_request(body):
            reply = judge_reply(messages)
        elif tools:
            reply = agent_reply(messages, tools)
        else:
            reply = FakeReply.text(NOT_THE_AGENT)
        reply = _with_usage(reply, messages)
        return reply.delayed(self.delay) if self.delay else reply


def is_judge_request(body: dict[str, Any]) -> bool:
    """True when `body` is a goal judge's request (by model name, else by system prompt)."""
    if "judge" in str(body.get("model", "")).lower():
        return True
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "system":
            return _text(message).lstrip().startswith(JUDGE_PROMPT_START)
    return False


def agent_reply(messages: list[dict[str, Any]], tools: set[str]) -> FakeReply:
    """The agent's next step: the first step of its round not yet in the conversation."""
    first, second = agent_rounds(tools)
    start = _followup_index(messages)
    steps, done = (first, messages) if start is None else (second, messages[start:])
    made = list(_tool_calls(done))
    for step in steps:
        if not any(step.matches(name, args) for name, args in made):
            if step.tool not in tools:
                break
            return FakeReply.tool_call(step.tool, step.arguments, content=step.remark)
    summary = (
        f"Done: {DEMO_FILE} greets, and {DEMO_TEST} proves it."
        if start is not None
        else f"Done: {DEMO_FILE} prints a greeting."
    )
    if "finish" in tools:
        return FakeReply.tool_call("finish", {"message": summary})
    return FakeReply.text(summary)


def judge_reply(messages: list[dict[str, Any]]) -> FakeReply:
    """The judge's verdict: which of `REQUIREMENTS` the transcript proves (see module doc)."""
    asked = "\n".join(_text(m) for m in messages if m.get("role") != "system")
    # The verify result is stated before the transcript; the transcript itself may quote an
    # older one (a follow-up names a failed verify), and the objective may quote anything.
    head, _, transcript = asked.partition(TRANSCRIPT_OPEN)
    requirements = [
        {
            "text": req.text,
            "satisfied": bool(req.proof.search(transcript)),
            "evidence": req.evidence if req.proof.search(transcript) else "not shown yet",
        }
        for req in REQUIREMENTS
    ]
    verify = _VERIFY_EXIT.search(head)
    if verify is not None:
        passed = verify.group(1) == "0"
        requirements.append(
            {
                "text": "the verification command passes",
                "satisfied": passed,
                "evidence": verify.group(0),
            }
        )
    proven = sum(1 for req in requirements if req["satisfied"])
    missing = [req["text"] for req in requirements if not req["satisfied"]]
    verdict = {
        "score": round(proven / len(requirements), 2),
        "complete": not missing,
        "missing": "; ".join(missing),
        "requirements": requirements,
    }
    return FakeReply.text(json.dumps(verdict))


def _followup_index(messages: list[dict[str, Any]]) -> int | None:
    for index, message in enumerate(messages):
        if message.get("role") == "user" and _text(message).startswith(FOLLOWUP_START):
            return index
    return None


def _tool_calls(messages: Iterable[dict[str, Any]]) -> Iterable[tuple[str, dict[str, Any]]]:
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            function = (call.get("function") or {}) if isinstance(call, dict) else {}
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except ValueError:
                arguments = {}
            yield str(function.get("name", "")), arguments if isinstance(arguments, dict) else {}


def _tool_names(tools: Any) -> set[str]:
    names: set[str] = set()
    for tool in tools or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name"):
            names.add(str(function["name"]))
    return names


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _with_usage(reply: FakeReply, messages: list[dict[str, Any]]) -> FakeReply:
    """The reply with token counts estimated like a real provider's (about 4 chars a token)
    and the price of those tokens reported in `usage.cost` (DEMO_PRICE_PER_MILLION)."""
    prompt = sum(len(_text(m)) + len(json.dumps(m.get("tool_calls") or [])) for m in messages)
    answer = len(reply.content or "") + sum(len(args) for _, args in reply.calls)
    prompt_tokens, completion_tokens = max(1, prompt // 4), max(1, answer // 4)
    per_input, per_output = DEMO_PRICE_PER_MILLION
    return FakeReply(
        content=reply.content,
        calls=reply.calls,
        finish_reason=reply.finish_reason,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost=(prompt_tokens * per_input + completion_tokens * per_output) / 1_000_000,
    )


__all__ = [
    "DEMO_FILE",
    "DEMO_PRICE_PER_MILLION",
    "DEMO_TEST",
    "JUDGE_PROMPT_START",
    "REQUIREMENTS",
    "DemoScript",
    "DemoStep",
    "agent_reply",
    "agent_rounds",
    "is_judge_request",
    "judge_reply",
]
