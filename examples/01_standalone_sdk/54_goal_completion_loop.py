"""Goal loop: an agent builds `mathx.py` and its tests until a judge (and pytest) agree it is done.

A plain `conversation.run()` stops when the agent *thinks* it is done. `run_goal` is stricter:
after each run an independent judge LLM audits the transcript, and `python -m pytest -q` must
exit 0 in the workspace; otherwise the agent is sent back with what is missing.

Run it:
    export LLM_MODEL=openai/gpt-4o-mini LLM_API_KEY=sk-...   # LLM_BASE_URL for local servers
    uv run python examples/01_standalone_sdk/54_goal_completion_loop.py [WORKDIR]

Optional: LLM_JUDGE_MODEL (default: LLM_MODEL) picks the judge's model; the working directory
is the first argument, else GOAL_EXAMPLE_WORKDIR, else a new temporary directory.
Exits 0 when the goal completes, 1 when it is capped or interrupted, 2 without an LLM.
"""

from __future__ import annotations

import os
import sys
import tempfile

from openhands.sdk import LLM, Agent, Conversation, Tool
from openhands.sdk.conversation.goal import GoalStatus, run_goal
from openhands.sdk.llm import LLMConfigurationError

OBJECTIVE = """\
In the current directory, create a Python module `mathx.py` with two functions:
`add(a, b)` returning a + b, and `clamp(x, low, high)` returning x limited to [low, high]
(raise ValueError when low > high). Also create `test_mathx.py` with pytest tests for both
functions, including the ValueError case. Run `python -m pytest -q` and show that it passes."""

VERIFY = "python -m pytest -q"


def working_dir() -> str:
    """The folder the agent works in: argv[1], GOAL_EXAMPLE_WORKDIR, or a fresh temp dir."""
    if len(sys.argv) > 1:
        path = sys.argv[1]
    else:
        path = os.environ.get("GOAL_EXAMPLE_WORKDIR") or tempfile.mkdtemp(prefix="goal-demo-")
    os.makedirs(path, exist_ok=True)
    return os.path.abspath(path)


class ProgressPrinter:
    """Prints the goal's progress live, from the statuses `run_goal` hands to `on_status`."""

    def __init__(self) -> None:
        self.rounds_shown = 0

    def __call__(self, status: GoalStatus) -> None:
        last = status.last_round
        if last is not None and last.iteration > self.rounds_shown:
            # A round was just judged: one line of the round timeline.
            self.rounds_shown = last.iteration
            line = f"[goal] round {last.iteration}: score {last.score:.2f}"
            if last.verify_exit_code is not None:
                line += f", verify exit {last.verify_exit_code}"
            line += f", ${last.cost:.4f}"
            if last.missing:
                line += f"; missing: {last.missing}"
            print(line, flush=True)
        if status.active:
            round_number = status.iteration + 1
            doing = {"agent": "the agent works", "verifying": "verifying", "judging": "judging"}
            print(
                f"[goal] round {round_number}/{status.max_iterations}: "
                f"{doing.get(status.phase or '', 'working')}...",
                flush=True,
            )
        else:
            print(f"[goal] {status.status} (total ${status.cost:.4f})", flush=True)


def main() -> int:
    """Build the agent and run the goal; return the process exit code."""
    try:
        agent_llm = LLM.from_env(usage_id="agent")
    except LLMConfigurationError as exc:
        print(f"54_goal_completion_loop: {exc}", file=sys.stderr)
        return 2
    judge_model = os.environ.get("LLM_JUDGE_MODEL", "").strip() or agent_llm.model
    judge_llm = agent_llm.copy_for("goal-judge", model=judge_model)

    workdir = working_dir()
    print(f"workspace: {workdir}", flush=True)
    agent = Agent(llm=agent_llm, tools=[Tool(name="terminal"), Tool(name="file_editor")])
    conversation = Conversation(agent, workspace=workdir)
    try:
        outcome = run_goal(
            conversation,
            OBJECTIVE,
            judge_llm,
            max_iterations=5,
            verify=VERIFY,
            max_cost=2.0,
            on_status=ProgressPrinter(),
        )
    finally:
        conversation.close()

    print(
        f"goal {outcome.status} after {outcome.iterations} round(s); "
        f"cost ${outcome.cost:.4f} (judge ${outcome.judge_cost:.4f})",
        flush=True,
    )
    if outcome.reason:
        print(f"reason: {outcome.reason}")
    if outcome.error:
        print(f"error: {outcome.error}")
    return 0 if outcome.complete else 1


if __name__ == "__main__":
    sys.exit(main())
