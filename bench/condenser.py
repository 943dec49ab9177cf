"""Per-step cost as a conversation grows, with and without a context condenser.

One in-memory conversation runs 2,500 scripted `think` steps (5,000+ events: a call and its
result per step). At 100, 1,000 and 5,000 events it records the ms per step over the next 50
steps and how many messages the LLM was sent. With `NoOpCondenser` the message count grows
with the history; with `LLMSummarizingCondenser(max_size=120, keep_first=2)` (its summaries
from an instant scripted LLM) it stays under 120, and the per-step time stays flat: the
condensation is part of the step that does it.

Prints one JSON line. Usage: `uv run python bench/condenser.py`.
"""

from __future__ import annotations

import json
import os
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from openhands.sdk import Agent, LocalConversation, Message, MessageToolCall, TextContent
from openhands.sdk.context.condenser import LLMSummarizingCondenser, NoOpCondenser
from openhands.sdk.llm import LLMResponse
from openhands.sdk.testing import TestLLM
from pydantic import PrivateAttr

CHECKPOINTS = (100, 1000, 5000)
WINDOW = 50  # steps measured at each checkpoint
STEPS = 2600


class _Recording(TestLLM):
    """A scripted agent that notes the time and message count of every call."""

    _seen: list[tuple[float, int]] = PrivateAttr(default_factory=list)

    def _complete(self, messages: list[Message], tools, stream, **kwargs) -> LLMResponse:  # type: ignore[override]
        self._seen.append((time.perf_counter(), len(messages)))
        return super()._complete(messages, tools, stream, **kwargs)


def _script(steps: int) -> list[Message]:
    calls = [
        Message(
            role="assistant",
            tool_calls=[
                MessageToolCall(
                    id=f"c{i}", name="think", arguments=json.dumps({"thought": f"step {i}"})
                )
            ],
        )
        for i in range(steps)
    ]
    return [*calls, Message(role="assistant", content=[TextContent(text="done")])]


def _run(condenser: NoOpCondenser | LLMSummarizingCondenser) -> dict[str, object]:
    llm = _Recording.from_messages(_script(STEPS), usage_id="agent")
    assert isinstance(llm, _Recording)
    agent = Agent(llm=llm, tools=[], condenser=condenser)
    conversation = LocalConversation(agent, ".", max_iteration_per_run=STEPS + 10)
    conversation.send_message("think a lot")
    conversation.run()
    events = len(conversation.state.events)
    conversation.close()
    seen = llm._seen
    result: dict[str, object] = {"events": events}
    for checkpoint in CHECKPOINTS:
        step = checkpoint // 2  # two events per step
        window = seen[step : step + WINDOW + 1]
        per_step_ms = (window[-1][0] - window[0][0]) / (len(window) - 1) * 1000
        result[f"ms_per_step_at_{checkpoint}"] = round(per_step_ms, 3)
        result[f"messages_sent_at_{checkpoint}"] = window[0][1]
    return result


def main() -> None:
    summaries = [
        Message(role="assistant", content=[TextContent(text=f"summary {n}: thought a lot")])
        for n in range(STEPS)
    ]
    summarizer = TestLLM.from_messages(summaries, usage_id="condenser")
    with_condenser = _run(LLMSummarizingCondenser(llm=summarizer, max_size=120, keep_first=2))
    without = _run(NoOpCondenser())
    print(json.dumps({"bench": "condenser", "noop": without, "llm_summarizing": with_condenser}))


if __name__ == "__main__":
    main()
