"""Run (or resume) a goal in this process, in a conversation persisted under the workspace.

The goal loop (`run_goal` / `resume_goal`) runs in a worker thread (`drive`); Ctrl-C becomes
`conversation.interrupt()`, so the agent stops after its current step (an LLM request or tool
call already under way ends first) and the goal ends `interrupted`, recorded in the
conversation's event log. A second Ctrl-C quits at once.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

from openhands.sdk import Agent, Tool
from openhands.sdk.conversation.goal import (
    GoalOutcome,
    GoalStatus,
    last_goal_status,
    resume_goal,
    run_goal,
)
from openhands.sdk.conversation.local import LocalConversation
from openhands.sdk.conversation.persistence import (
    list_conversation_ids,
    load_conversation_summary,
)
from openhands.sdk.errors import OpenHandsError
from openhands.tools.cli.drive import drive
from openhands.tools.cli.feed import EventFeed, StatusTracker
from openhands.tools.cli.options import GoalCommandError, GoalOptions
from openhands.tools.cli.views import GoalView

TOOLS = ("terminal", "file_editor")
"""The agent's tools."""

IGNORE_ALL = "# Written by openhands-goal: its conversations are not part of the project.\n*\n"


def run_local(options: GoalOptions, view: GoalView) -> GoalStatus | None:
    """Run the goal `options` describe in this process; return its last status."""
    llm = options.agent_llm()
    judge = options.judge_llm(llm)
    store = options.conversations_dir
    conversation_id = options.conversation_id
    if options.resume and conversation_id is None:
        conversation_id = latest_resumable(store)
    if options.resume:
        _check_stored(store, conversation_id)
    prepare_store(store)
    tracker = StatusTracker(view)
    feed = EventFeed(tracker, view, options.workspace, goal_events=False)
    agent = Agent(llm=llm, tools=[Tool(name=name) for name in TOOLS])
    conversation = LocalConversation(
        agent,
        workspace=options.workspace,
        persistence_dir=store,
        conversation_id=conversation_id,
        callbacks=[feed],
        max_iteration_per_run=options.max_steps,
    )
    try:
        work: Callable[[], GoalOutcome]
        if options.resume:
            stored = last_goal_status(conversation.state.events)
            if stored is None or not stored.resumable:
                ended = "has no goal" if stored is None else f"ended {stored.status}"
                raise GoalCommandError(
                    f"Conversation {conversation.id} {ended}: nothing to resume. Start a new "
                    "goal (give an objective instead of --resume)."
                )
            view.begin(str(conversation.id), options.header(conversation.id, stored))
            # The judge continues from the judge counts saved with the conversation (else
            # `resume_goal` finds them registered under its usage_id and leaves it out).
            conversation.conversation_stats.register_llm(judge)

            def work() -> GoalOutcome:
                return resume_goal(conversation, judge, on_status=tracker)

        else:
            request = options.goal_request()
            view.begin(str(conversation.id), options.header(conversation.id))

            def work() -> GoalOutcome:
                return run_goal(conversation, request, judge, on_status=tracker)

        drive(work, conversation.interrupt, view, repeat_stop=True)
        return tracker.latest
    finally:
        conversation.close()


def prepare_store(store: Path) -> None:
    """Create the conversations folder, with a .gitignore that keeps it out of git."""
    try:
        store.mkdir(parents=True, exist_ok=True)
        ignore = store / ".gitignore"
        if not ignore.exists():
            ignore.write_text(IGNORE_ALL)
    except OSError as exc:
        raise GoalCommandError(
            f"Cannot create the conversations folder {store} ({exc.strerror or exc}); pass "
            "--conversations-dir with a folder you can write."
        ) from exc


def latest_resumable(store: Path) -> uuid.UUID:
    """The conversation in `store` whose goal was interrupted (or left running) most recently."""
    best: tuple[float, uuid.UUID] | None = None
    for conversation_id in list_conversation_ids(store):
        try:
            summary = load_conversation_summary(store, conversation_id)
        except (OpenHandsError, OSError):
            continue  # a damaged folder is not the one to resume
        goal = summary.goal if summary is not None else None
        if summary is None or goal is None or goal.get("status") not in ("running", "interrupted"):
            continue
        stamp = summary.updated_at.timestamp()
        if best is None or stamp > best[0]:
            best = (stamp, conversation_id)
    if best is None:
        raise GoalCommandError(
            f"No interrupted goal in {store}: nothing to resume. Start one with an objective "
            "(or pass --conversations-dir where the conversation is)."
        )
    return best[1]


def _check_stored(store: Path, conversation_id: uuid.UUID | None) -> None:
    if conversation_id is None:
        return
    if load_conversation_summary(store, conversation_id) is None:
        raise GoalCommandError(
            f"No conversation {conversation_id} in {store}; check --conversation-id (and "
            "--conversations-dir, or --server if it ran on a server)."
        )


__all__ = ["TOOLS", "latest_resumable", "prepare_store", "run_local"]
