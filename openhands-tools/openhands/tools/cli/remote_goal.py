"""Run (or resume) a goal on an agent server through `RemoteConversation`.

The server's own goal loop does the work; progress comes from the goal status events (and the
agent's actions) streamed over the conversation's WebSocket. Ctrl-C stops the goal on the
server (`POST /goal/stop`: `interrupted`, reason `stopped by user`) and waits until the agent
has stopped; a second Ctrl-C leaves at once (the goal stays stopped on the server).
"""

from __future__ import annotations

import uuid

from openhands.sdk import Agent, Tool
from openhands.sdk.conversation.goal import GoalStatus
from openhands.sdk.remote import RemoteConversation, RemoteWorkspace
from openhands.sdk.remote.client import RemoteClient
from openhands.sdk.security import AlwaysConfirm
from openhands.sdk.wire import ConversationPage
from openhands.tools.cli.approve import TerminalApprover, approval_note
from openhands.tools.cli.changes import rewind_line
from openhands.tools.cli.drive import drive
from openhands.tools.cli.feed import EventFeed, StatusTracker
from openhands.tools.cli.local_goal import TOOLS, show_goal_diff
from openhands.tools.cli.options import GoalCommandError, GoalOptions, check_resumable
from openhands.tools.cli.views import GoalView

SEARCH_PAGES = 20
"""How many pages of 100 conversations `--resume` without an id searches (newest first)."""


def run_remote(options: GoalOptions, view: GoalView) -> GoalStatus | None:
    """Run the goal `options` describe on `options.server`; return its last status."""
    assert options.server is not None
    llm = options.agent_llm()
    judge = options.judge_llm(llm) if options.judge_model else None
    key = options.session_key()
    conversation_id = options.conversation_id
    change = options.limits_change()
    if options.resume:
        conversation_id = _resumable_on_server(options, conversation_id)
    tracker = StatusTracker(view)
    feed = EventFeed(tracker, view, options.workspace, goal_events=True)
    workspace = RemoteWorkspace(
        host=options.server, api_key=key, working_dir=str(options.workspace)
    )
    agent = Agent(llm=llm, tools=[Tool(name=name) for name in TOOLS])
    conversation = RemoteConversation(
        agent,
        workspace,
        conversation_id=conversation_id,
        callbacks=[feed],
        max_iteration_per_run=options.max_steps or 500,
    )
    if options.confirm:
        conversation.set_confirmation_policy(AlwaysConfirm())
    # Always there: the conversation may ask before its calls (its own approval setting, or
    # a call left waiting when a goal stopped); without an approver it would wait forever.
    approver = TerminalApprover(conversation, view, options.workspace)
    try:
        if options.rewind is not None:
            conversation.rewind(options.rewind)  # the feed prints what it did
        if options.resume:
            stored = conversation.goal_status()
            check_resumable(stored, change, f"conversation {conversation.id} on {options.server}")
            assert stored is not None
            feed.objective = stored.objective
            view.begin(str(conversation.id), options.header(conversation.id, stored))
            if not options.confirm:
                note = approval_note(conversation.state.info().confirmation_policy)
                if note is not None:
                    view.notice(note)
            conversation.resume_goal(change)
        else:
            request = options.goal_request()
            feed.objective = request.objective
            view.begin(str(conversation.id), options.header(conversation.id))
            conversation.start_goal(request.model_copy(update={"judge_llm": judge}))
        last: list[GoalStatus] = []
        drive(
            lambda: last.append(conversation.wait_for_goal()),
            conversation.stop_goal,
            view,
            on_poll=approver,
        )
        tracker(last[0])
        if options.diff:
            show_goal_diff(conversation, view)
        return last[0]
    finally:
        conversation.close()


def rewind_remote(options: GoalOptions, view: GoalView) -> tuple[uuid.UUID, GoalStatus | None]:
    """`--rewind` alone on a server: restore the snapshot in `--conversation-id`; its id and
    its goal's last status."""
    assert options.server is not None and options.conversation_id is not None
    workspace = RemoteWorkspace(
        host=options.server, api_key=options.session_key(), working_dir=str(options.workspace)
    )
    agent = Agent(llm=options.agent_llm(), tools=[Tool(name=name) for name in TOOLS])
    conversation = RemoteConversation(agent, workspace, conversation_id=options.conversation_id)
    try:
        result = conversation.rewind(options.rewind or "")
        status = conversation.goal_status()
    finally:
        conversation.close()
    view.changes(rewind_line(result))
    return options.conversation_id, status


def _resumable_on_server(options: GoalOptions, conversation_id: uuid.UUID | None) -> uuid.UUID:
    """The conversation to resume: the one named (it must exist), else the newest one in this
    working directory whose goal is interrupted or capped (`check_resumable` then says what a
    capped one needs)."""
    assert options.server is not None
    client = RemoteClient(options.server, options.session_key())
    try:
        if conversation_id is not None:
            client.get_conversation(conversation_id)  # a 404 names the missing conversation
            return conversation_id
        page_id: str | None = None
        for _ in range(SEARCH_PAGES):
            params: dict[str, str | int] = {"limit": 100}
            if page_id is not None:
                params["page_id"] = page_id
            body = client.request("GET", "/api/conversations/search", params=params)
            page = ConversationPage.model_validate(body)
            for info in page.items:
                if (
                    info.goal is not None
                    and (info.goal.resumable or info.goal.status == "capped")
                    and info.workspace.working_dir == str(options.workspace)
                ):
                    return info.id
            page_id = page.next_page_id
            if page_id is None:
                break
    finally:
        client.close()
    raise GoalCommandError(
        f"No interrupted or capped goal on {options.server} for {options.workspace}: nothing to resume. "
        "Pass --conversation-id, or start a goal with an objective."
    )


__all__ = ["rewind_remote", "run_remote"]
