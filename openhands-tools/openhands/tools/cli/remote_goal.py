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
from openhands.sdk.conversation.remote import RemoteConversation
from openhands.sdk.conversation.remote.client import RemoteClient
from openhands.sdk.wire import ConversationPage
from openhands.sdk.workspace import RemoteWorkspace
from openhands.tools.cli.drive import drive
from openhands.tools.cli.feed import EventFeed, StatusTracker
from openhands.tools.cli.local_goal import TOOLS
from openhands.tools.cli.options import GoalCommandError, GoalOptions
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
    try:
        if options.resume:
            stored = conversation.goal_status()
            if stored is None or not stored.resumable:
                ended = "has no goal" if stored is None else f"ended {stored.status}"
                raise GoalCommandError(
                    f"Conversation {conversation.id} on {options.server} {ended}: nothing to "
                    "resume. Start a new goal (give an objective instead of --resume)."
                )
            feed.objective = stored.objective
            view.begin(str(conversation.id), options.header(conversation.id, stored))
            conversation.resume_goal()
        else:
            request = options.goal_request()
            feed.objective = request.objective
            view.begin(str(conversation.id), options.header(conversation.id))
            conversation.start_goal(request.model_copy(update={"judge_llm": judge}))
        last: list[GoalStatus] = []
        drive(lambda: last.append(conversation.wait_for_goal()), conversation.stop_goal, view)
        tracker(last[0])
        return last[0]
    finally:
        conversation.close()


def _resumable_on_server(options: GoalOptions, conversation_id: uuid.UUID | None) -> uuid.UUID:
    """The conversation to resume: the one named (it must exist), else the newest one in this
    working directory whose goal is interrupted."""
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
                    and info.goal.resumable
                    and info.workspace.working_dir == str(options.workspace)
                ):
                    return info.id
            page_id = page.next_page_id
            if page_id is None:
                break
    finally:
        client.close()
    raise GoalCommandError(
        f"No interrupted goal on {options.server} for {options.workspace}: nothing to resume. "
        "Pass --conversation-id, or start a goal with an objective."
    )


__all__ = ["run_remote"]
