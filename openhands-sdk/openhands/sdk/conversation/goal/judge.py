"""The judge: ask an LLM whether the objective is proven complete, and parse its JSON verdict.

The judge's answer should be strict JSON; JSON inside prose or a code fence is still found.
An answer with no usable JSON means "not complete" (score 0, `missing` saying why): a broken
judge must never finish a goal by accident. The judge call never streams.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from openhands.sdk.contracts import EventHistory
from openhands.sdk.conversation.goal.models import (
    GoalRequirement,
    GoalVerdict,
    JudgeAnswer,
    VerifyResult,
)
from openhands.sdk.conversation.goal.prompts import judge_messages
from openhands.sdk.conversation.goal.steps import AskJudge
from openhands.sdk.conversation.goal.transcript import (
    DEFAULT_ENTRY_CHARS,
    DEFAULT_TRANSCRIPT_CHARS,
    TranscriptWindow,
    render_transcript,
)
from openhands.sdk.event.base import Event
from openhands.sdk.llm.llm import LLM, LLMResponse
from openhands.sdk.llm.message import Message

# Only `{"` or `{}` can open a JSON object: skips the braces of code or f-strings in prose.
_OBJECT_START = re.compile(r"\{\s*[\"}]")
_VERDICT_KEYS = frozenset({"complete", "score", "missing", "requirements"})
_MAX_OBJECT_STARTS = 200
_TRUE_WORDS = frozenset({"true", "yes", "y", "1", "complete", "done"})


def _objects_in(text: str) -> list[Any]:
    """Top-level JSON objects in `text` (prose, code fences), in order (bounded scan)."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    position = 0
    attempts = 0
    while attempts < _MAX_OBJECT_STARTS:
        match = _OBJECT_START.search(text, position)
        if match is None:
            break
        attempts += 1
        try:
            value, end = decoder.raw_decode(text, match.start())
        except ValueError:
            position = match.start() + 1
            continue
        values.append(value)
        position = end
    return values


def _is_verdict(value: Any) -> bool:
    return isinstance(value, dict) and bool(_VERDICT_KEYS & value.keys())


def extract_verdict_json(text: str) -> dict[str, Any] | None:
    """The verdict object in the judge's answer `text`: strict JSON, or found in prose/fences.

    A judge may quote JSON from the transcript (an agent can print `{"complete": true}`)
    before or after its own verdict. When the answer holds several verdict-like objects, the
    last one that says "not complete" wins, else the last one: a quoted claim never turns a
    judge's "not complete" into "complete".
    """
    try:
        whole = json.loads(text.strip())
    except ValueError:
        whole = None
    if _is_verdict(whole):
        return whole
    found = [value for value in _objects_in(text) if _is_verdict(value)]
    if not found:
        return None
    incomplete = [value for value in found if not verdict_from_json(value).complete]
    return (incomplete or found)[-1]


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in _TRUE_WORDS
    return False


def _requirements(value: Any) -> list[GoalRequirement] | None:
    if not isinstance(value, list):
        return None
    parsed: list[GoalRequirement] = []
    for item in value:
        if not isinstance(item, dict):
            continue
        text = item.get("text") or item.get("requirement") or item.get("name")
        if not isinstance(text, str) or not text.strip():
            continue
        evidence = item.get("evidence")
        parsed.append(
            GoalRequirement(
                text=text.strip(),
                satisfied=_as_bool(item.get("satisfied")),
                evidence=evidence.strip() if isinstance(evidence, str) else "",
            )
        )
    return parsed


def verdict_from_json(data: dict[str, Any]) -> GoalVerdict:
    """Build a verdict from the judge's JSON object, leniently.

    `complete` must be explicitly true, and stays false while any listed requirement is
    unsatisfied, so a self-contradicting judge errs on the side of more work.
    """
    requirements = _requirements(data.get("requirements"))
    complete = _as_bool(data.get("complete"))
    if requirements and any(not req.satisfied for req in requirements):
        complete = False
    score = data.get("score", 1.0 if complete else 0.0)
    fields: dict[str, Any] = {"score": score, "complete": complete, "requirements": requirements}
    for name in ("missing", "missing_items"):
        if name in data:
            fields[name] = data[name]
    return GoalVerdict.model_validate(fields)


def parse_verdict(text: str) -> GoalVerdict | None:
    """The verdict in the judge's answer `text`, or None when it holds no usable JSON."""
    data = extract_verdict_json(text)
    return None if data is None else verdict_from_json(data)


UNPARSEABLE = "Judge verdict could not be parsed."
"""`missing` of the verdict that stands in for an answer holding no JSON verdict (the
reference SDK's wording, which its goal tests compare)."""

UNANSWERED = "The judge could not be asked, so the goal is not proven complete."
"""`missing` of the verdict that stands in for a judge call that failed."""


def _unparseable(text: str) -> str:
    snippet = " ".join(text.split())[:200] or "(empty answer)"
    return f"the judge's answer held no JSON verdict: {snippet!r}"


def _ask(judge_llm: LLM, messages: list[Message]) -> LLMResponse:
    """One judge completion, never streamed (a streaming LLM is asked through a copy).

    The copy shares the LLM's metrics, so the judge's cost still counts where it should.
    """
    llm = judge_llm.model_copy(update={"stream": False}) if judge_llm.stream else judge_llm
    return llm.completion(messages)


def ask_judge(
    judge_llm: LLM, objective: str, transcript: str, verify: VerifyResult | None = None
) -> JudgeAnswer:
    """Call the judge on a rendered transcript; never raises (a failure is in `error`).

    The call never streams, whatever the LLM's `stream` setting.
    """
    try:
        response = _ask(judge_llm, judge_messages(objective, transcript, verify))
    except Exception as exc:  # any failure of the judge is a failed round, not a crash
        return JudgeAnswer(GoalVerdict(missing=UNANSWERED), error=f"{type(exc).__name__}: {exc}")
    text = response.message.text
    verdict = parse_verdict(text)
    if verdict is None:
        return JudgeAnswer(
            GoalVerdict(missing=UNPARSEABLE), cost=response.cost, error=_unparseable(text)
        )
    return JudgeAnswer(verdict, cost=response.cost)


class GoalJudge:
    """Performs `AskJudge` steps for one goal: the judge LLM and its transcript window.

    The window renders only the events added since the previous round, so a judge call costs
    the same at event 100 and event 10,000; keep one `GoalJudge` per goal.
    """

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self._window: TranscriptWindow | None = None

    def answer(self, step: AskJudge, events: Sequence[Event] | EventHistory) -> JudgeAnswer:
        """Ask the judge about `events` as the step says; never raises (see `JudgeAnswer`)."""
        window = self._window
        if window is None or window.max_chars != step.transcript_chars:
            window = self._window = TranscriptWindow(step.transcript_chars)
        return ask_judge(self.llm, step.objective, window.update(events), step.verify)


def judge_goal(
    judge_llm: LLM,
    objective: str,
    events: Sequence[Event] | EventHistory,
    *,
    verify: VerifyResult | None = None,
    max_chars: int = DEFAULT_TRANSCRIPT_CHARS,
    entry_chars: int = DEFAULT_ENTRY_CHARS,
) -> GoalVerdict:
    """Ask `judge_llm` whether `objective` is proven complete by the conversation `events`.

    The judge sees a bounded `role: text` transcript (no system prompt, no state updates) and
    `verify`'s result if given (a failing verify makes the verdict incomplete). An
    unparseable answer is `score=0, complete=False` with `missing` saying so; an error of the
    LLM call itself is raised. The call never streams, even for an LLM with `stream=True`.
    """
    transcript = render_transcript(events, max_chars, entry_chars)
    response = _ask(judge_llm, judge_messages(objective, transcript, verify))
    verdict = parse_verdict(response.message.text)
    return (verdict if verdict is not None else GoalVerdict(missing=UNPARSEABLE)).gated_by(verify)
