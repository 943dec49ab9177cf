"""The options of `openhands-goal`, checked once, and the error a bad command line raises."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from openhands.sdk.conversation.goal import (
    GoalLimits,
    GoalLimitsChange,
    GoalRequest,
    GoalStatus,
    InvalidGoalError,
    NoResumableGoalError,
    resume_limits,
)
from openhands.sdk.conversation.goal.limits import COST_BUDGET, TIME_LIMIT
from openhands.sdk.errors import OpenHandsError
from openhands.sdk.llm import LLM
from openhands.sdk.llm.errors import LLMConfigurationError
from openhands.sdk.llm.llm import ENV_HELP, native_tool_calling_from_env
from pydantic import SecretStr

CONVERSATIONS_DIR = Path(".openhands") / "conversations"
"""Where local conversations persist, under the workspace (`--conversations-dir` changes it)."""

SESSION_KEY_ENV = "OH_SESSION_API_KEY"
"""The environment variable `--api-key` defaults to (a key of the server's OH_SESSION_API_KEYS)."""

EXIT_COMPLETE = 0
EXIT_CAPPED = 1
EXIT_STOPPED = 2
"""Exit codes: complete, capped (a limit was reached), interrupted or any error."""

Output = Literal["live", "plain", "json"]


class GoalCommandError(OpenHandsError, ValueError):
    """The command line is wrong or names nothing usable; the message says what to pass."""


@dataclass(frozen=True)
class GoalOptions:
    """Everything `openhands-goal` was asked to do, checked (see `docs/cli.md`)."""

    objective: str | None
    verify: str | None
    max_iterations: int | None
    max_cost: float | None
    time_limit: float | None
    model: str | None
    base_url: str | None
    llm_api_key: str | None
    judge_model: str | None
    workspace: Path
    conversations_dir: Path
    conversation_id: uuid.UUID | None
    resume: bool
    server: str | None
    api_key: str | None
    max_steps: int | None
    output: Output
    confirm: bool = False
    diff: bool = False
    rewind: str | None = None

    def goal_request(self) -> GoalRequest:
        """The new goal's options as the SDK checks them (raises `InvalidGoalError`)."""
        limits: dict[str, float | int] = {}
        if self.max_iterations is not None:
            limits["max_iterations"] = self.max_iterations
        return GoalRequest.checked(
            objective=self.objective or "",
            verify=self.verify,
            max_cost=self.max_cost,
            time_limit=self.time_limit,
            **limits,
        )

    def limits_change(self) -> GoalLimitsChange | None:
        """The new limits `--resume` gives the stored goal (None: it keeps its own); raises
        `InvalidGoalError` naming a bad one."""
        change = GoalLimitsChange(
            max_iterations=self.max_iterations, max_cost=self.max_cost, time_limit=self.time_limit
        )
        if not change.changes_anything:
            return None
        change.applied_to(GoalLimits())  # checks each value given
        return change

    def agent_llm(self) -> LLM:
        """The agent's LLM: flags first, then LLM_MODEL, LLM_API_KEY and LLM_BASE_URL
        (LLM_NATIVE_TOOL_CALLING=false: tools described in the prompt, for a local model
        without tool calls)."""
        model = (self.model or os.environ.get("LLM_MODEL", "")).strip()
        if not model:
            raise GoalCommandError(
                "No model: pass --model or set LLM_MODEL. "
                f"{ENV_HELP} To try it without a model, start `openhands-fake-llm` and set "
                "LLM_MODEL=openai/fake LLM_BASE_URL=http://127.0.0.1:8001/v1 LLM_API_KEY=fake."
            )
        key = self.llm_api_key or os.environ.get("LLM_API_KEY") or None
        base_url = self.base_url or os.environ.get("LLM_BASE_URL") or None
        try:
            native = native_tool_calling_from_env()
        except LLMConfigurationError as exc:
            raise GoalCommandError(str(exc)) from None
        return LLM(
            model=model,
            api_key=SecretStr(key) if key else None,
            base_url=base_url,
            usage_id="agent",
            native_tool_calling=native if native is not None else True,
        )

    def judge_llm(self, agent_llm: LLM) -> LLM:
        """The judge: a copy of the agent's LLM (usage_id goal-judge), `--judge-model` if set."""
        if self.judge_model:
            return agent_llm.copy_for("goal-judge", model=self.judge_model)
        return agent_llm.copy_for("goal-judge")

    def session_key(self) -> SecretStr | None:
        """The agent server's session key: `--api-key`, else OH_SESSION_API_KEY."""
        key = self.api_key or os.environ.get(SESSION_KEY_ENV) or None
        return SecretStr(key) if key else None

    def resume_command(self, conversation_id: uuid.UUID) -> str:
        """The command line that resumes the goal of `conversation_id` (with `uv run` in front
        when this one was started by `uv run`: it is not on the shell's PATH then)."""
        parts = [*command_prefix(), "--resume", "--conversation-id", str(conversation_id)]
        if self.server:
            parts += ["--server", self.server]
        elif self.conversations_dir != self.workspace / CONVERSATIONS_DIR:
            parts += ["--conversations-dir", str(self.conversations_dir)]
        return " ".join(parts)

    def header(self, conversation_id: uuid.UUID, status: GoalStatus | None = None) -> str:
        """Two lines saying what runs where: the objective, then the conversation and limits.

        With `status` (a goal being resumed), its stored objective and limits are shown (with
        the new limits `--resume` gives it).
        """
        if status is not None:
            objective = status.objective
            change = self.limits_change()
            limits = status.limits if change is None else change.applied_to(status.limits)
            rounds, verify = limits.max_iterations, status.verify_command
            max_cost, time_limit = limits.max_cost, limits.time_limit
            done = plural(status.iteration, "round")
            title = (
                f"continuing capped goal (after {done}, with new limits)"
                if status.status == "capped"
                else f"resuming goal (after {status.iteration} of {status.max_iterations} rounds)"
            )
        else:
            request = self.goal_request()
            objective, rounds, verify = request.objective, request.max_iterations, request.verify
            max_cost, time_limit = request.max_cost, request.time_limit
            title = "goal"
        where = f"{self.workspace} on {self.server}" if self.server else str(self.workspace)
        details = [f"conversation {conversation_id}", where, f"up to {plural(rounds, 'round')}"]
        if verify:
            details.append(f"verify: {verify}")
        if max_cost:
            details.append(f"max cost ${max_cost:g}")
        if time_limit:
            details.append(f"time limit {time_limit:g} s")
        short = " ".join(objective.split())
        if len(short) > 200:
            short = short[:197] + "..."
        return f"{title}: {short}\n" + " | ".join(details)


def check_resumable(stored: GoalStatus | None, change: GoalLimitsChange | None, where: str) -> None:
    """The SDK's rule for what `--resume` may continue (`resume_limits`), in this command's
    words (its flags); `where` names the conversation."""
    try:
        resume_limits(
            stored, change, start_hint="start a new goal (give an objective instead of --resume)"
        )
    except NoResumableGoalError as exc:
        if stored is not None and stored.status == "capped":
            raise GoalCommandError(
                f"{where}: its goal was capped ({stored.reason}). Continue it with new limits: "
                f"add --max-iterations N (more than the {stored.iteration} rounds done), "
                "--max-cost USD or --time-limit SECONDS to --resume."
            ) from None
        raise GoalCommandError(f"{exc} ({where})") from None
    except InvalidGoalError as exc:
        flag = "--" + (exc.field or "max_iterations").replace("_", "-")
        raise GoalCommandError(f"{flag}: {exc}") from None


def more_rounds(status: GoalStatus) -> str:
    """The flag that lifts the limit a capped goal reached (a suggestion for the hint line):
    half as many rounds again, or twice the budget."""
    limits, reason = status.limits, status.reason or ""
    if reason.startswith(COST_BUDGET) and limits.max_cost is not None:
        return f"--max-cost {limits.max_cost * 2:g}"
    if reason.startswith(TIME_LIMIT) and limits.time_limit is not None:
        return f"--time-limit {limits.time_limit * 2:g}"
    return f"--max-iterations {status.iteration + max(1, status.iteration // 2)}"


def plural(count: int, noun: str) -> str:
    """ "1 round", "2 rounds"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def command_prefix() -> list[str]:
    """How to run this command again from the same shell: `openhands-goal`, or
    `uv run openhands-goal` when `uv run` started it (UV_RUN_RECURSION_DEPTH is set then)."""
    if os.environ.get("UV_RUN_RECURSION_DEPTH"):
        return ["uv", "run", "openhands-goal"]
    return ["openhands-goal"]


def exit_code(final: GoalStatus | None) -> int:
    """0 for a complete goal, 1 for a capped one, 2 for anything else."""
    if final is None:
        return EXIT_STOPPED
    return {"complete": EXIT_COMPLETE, "capped": EXIT_CAPPED}.get(final.status, EXIT_STOPPED)


__all__ = [
    "CONVERSATIONS_DIR",
    "EXIT_CAPPED",
    "EXIT_COMPLETE",
    "EXIT_STOPPED",
    "SESSION_KEY_ENV",
    "GoalCommandError",
    "GoalOptions",
    "Output",
    "check_resumable",
    "command_prefix",
    "exit_code",
    "more_rounds",
    "plural",
]
