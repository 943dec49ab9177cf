"""Which LLM judges a goal: the one a request names, counted under `goal-judge` by default.

Without a requested judge the driver uses a copy of the agent's LLM under the same usage id,
one per conversation, so its usage adds up across goals.
"""

from __future__ import annotations

from openhands.sdk.llm import LLM

JUDGE_USAGE_ID = "goal-judge"
"""The usage id of the default judge, and of a requested one that names none."""


def requested_judge(llm: LLM | None) -> LLM | None:
    """A requested judge, counted under `goal-judge` unless the request named a usage id."""
    if llm is None or "usage_id" in llm.model_fields_set:
        return llm
    return llm.copy_for(JUDGE_USAGE_ID)


def default_judge(agent_llm: LLM) -> LLM:
    """A judge for a goal whose request names none: a copy of the agent's LLM."""
    return agent_llm.copy_for(JUDGE_USAGE_ID)
