"""A child process driving a goal with `run_goal`, for a test that kills it with SIGKILL.

Argument: one JSON object with the conversations folder (`store`), the conversation's `id`,
its `workdir`, its `agent` (with keys) and the `goal` request (with `judge_llm`).
"""

from __future__ import annotations

import json
import sys
import uuid

from openhands.sdk import LLM, Agent, LocalConversation
from openhands.sdk.conversation.goal import GoalRequest, run_goal


def main() -> None:
    spec = json.loads(sys.argv[1])
    goal = dict(spec["goal"])
    judge = LLM.model_validate(goal.pop("judge_llm"))
    conversation = LocalConversation(
        Agent.model_validate(spec["agent"]),
        workspace=spec["workdir"],
        persistence_dir=spec["store"],
        conversation_id=uuid.UUID(spec["id"]),
    )
    run_goal(conversation, GoalRequest.model_validate(goal), judge)


if __name__ == "__main__":
    main()
