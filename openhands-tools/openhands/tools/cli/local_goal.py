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
from openhands.sdk.llm import LLM
from openhands.sdk.llm.preflight import check_llm
from openhands.sdk.security import AlwaysConfirm
from openhands.sdk.workspace.checkpoints import CheckpointDiff
from openhands.tools.cli.approve import TerminalApprover, approval_note
from openhands.tools.cli.changes import CheckpointSource, goal_diff
from openhands.tools.cli.drive import drive
from openhands.tools.cli.feed import EventFeed, StatusTracker
from openhands.tools.cli.options import GoalCommandError, GoalOptions, check_resumable
from openhands.tools.cli.views import GoalView

TOOLS = ("terminal", "file_editor")
"""The agent's tools."""

IGNORE_ALL = "# Written by openhands-goal: its conversations are not part of the project.\n*\n"


def run_local(options: GoalOptions, view: GoalView) -> GoalStatus | None:
    """Run the goal `options` describe in this process; return its last status."""
    llm = options.agent_llm()
    judge = options.judge_llm(llm)
    check_models(llm, judge)
    store = options.conversations_dir
    conversation_id = options.conversation_id
    change = options.limits_change()
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
    if options.confirm:
        conversation.set_confirmation_policy(AlwaysConfirm())
    # Always there: a resumed conversation keeps the approval setting it was started with,
    # and a call it left waiting is asked about again (without an approver it would wait
    # forever).
    approver = TerminalApprover(conversation, view, options.workspace)
    try:
        if options.rewind is not None:
            conversation.rewind(options.rewind)  # the feed prints what it did
        work: Callable[[], GoalOutcome]
        if options.resume:
            stored = last_goal_status(conversation.state.events)
            check_resumable(stored, change, f"conversation {conversation.id}")
            assert stored is not None
            view.begin(str(conversation.id), options.header(conversation.id, stored))
            if not options.confirm:
                note = approval_note(conversation.state.confirmation_policy)
                if note is not None:
                    view.notice(note)
            # The judge continues from the judge counts saved with the conversation (else
            # `resume_goal` finds them registered under its usage_id and leaves it out).
            conversation.conversation_stats.register_llm(judge)

            def work() -> GoalOutcome:
                return resume_goal(conversation, judge, on_status=tracker, limits=change)

        else:
            request = options.goal_request()
            view.begin(str(conversation.id), options.header(conversation.id))

            def work() -> GoalOutcome:
                return run_goal(conversation, request, judge, on_status=tracker)

        drive(work, conversation.interrupt, view, repeat_stop=True, on_poll=approver)
        if options.diff:
            show_goal_diff(conversation, view)
        return tracker.latest
    finally:
        conversation.close()


def rewind_local(options: GoalOptions, view: GoalView) -> tuple[uuid.UUID, GoalStatus | None]:
    """`--rewind` alone: restore the snapshot in the conversation (`--conversation-id`, else the
    newest one here); its id and its goal's last status."""
    store = options.conversations_dir
    conversation_id = options.conversation_id or latest_conversation(store)
    _check_stored(store, conversation_id)
    feed = EventFeed(StatusTracker(view), view, options.workspace, goal_events=False)
    conversation = LocalConversation(
        None,
        workspace=options.workspace,
        persistence_dir=store,
        conversation_id=conversation_id,
        callbacks=[feed],
    )
    try:
        conversation.rewind(options.rewind or "")
        return conversation_id, last_goal_status(conversation.state.events)
    finally:
        conversation.close()


def show_goal_diff(conversation: CheckpointSource, view: GoalView) -> None:
    """`--diff`: everything the goal changed, from its start snapshot to its newest round."""
    diff = goal_diff(conversation)
    if diff is None:
        view.diff("--diff: no snapshot of this goal's rounds, nothing to show", "")
        return
    view.diff(f"the goal changed {files_summary(diff)}:", diff.patch)


def files_summary(diff: CheckpointDiff) -> str:
    """ "3 files (+12 -4)"."""
    added = sum(f.additions or 0 for f in diff.files)
    removed = sum(f.deletions or 0 for f in diff.files)
    count = len(diff.files)
    return f"{count} file{'' if count == 1 else 's'} (+{added} -{removed})"


def latest_conversation(store: Path) -> uuid.UUID:
    """The conversation in `store` that changed last."""
    best: tuple[float, uuid.UUID] | None = None
    for conversation_id in list_conversation_ids(store):
        try:
            summary = load_conversation_summary(store, conversation_id)
        except (OpenHandsError, OSError):
            continue
        if summary is not None and (best is None or summary.updated_at.timestamp() > best[0]):
            best = (summary.updated_at.timestamp(), conversation_id)
    if best is None:
        raise GoalCommandError(f"No conversation in {store}: nothing to rewind.")
    return best[1]


KEY_FLAG = "--llm-api-key or LLM_API_KEY"


def check_models(llm: LLM, judge: LLM) -> None:
    """Before anything is created: the model's server is there, takes the key, serves the
    model (and the judge's model, when it is another one). Raises a clear `LLMError`."""
    check_llm(llm, key_flag=KEY_FLAG)
    if judge.model != llm.model:
        check_llm(judge, key_flag=KEY_FLAG)


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
    """The conversation in `store` whose goal was interrupted (or left running) or capped most
    recently (a capped one goes on only with new limits: `check_resumable` says so)."""
    wanted = ("running", "interrupted", "capped")
    best: tuple[float, uuid.UUID] | None = None
    for conversation_id in list_conversation_ids(store):
        try:
            summary = load_conversation_summary(store, conversation_id)
        except (OpenHandsError, OSError):
            continue  # a damaged folder is not the one to resume
        goal = summary.goal if summary is not None else None
        if summary is None or goal is None or goal.get("status") not in wanted:
            continue
        stamp = summary.updated_at.timestamp()
        if best is None or stamp > best[0]:
            best = (stamp, conversation_id)
    if best is None:
        raise GoalCommandError(
            f"No interrupted or capped goal in {store}: nothing to resume. Start one with an objective "
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


__all__ = [
    "TOOLS",
    "check_models",
    "files_summary",
    "latest_conversation",
    "latest_resumable",
    "prepare_store",
    "rewind_local",
    "run_local",
    "show_goal_diff",
]
