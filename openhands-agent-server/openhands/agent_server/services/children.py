"""Child conversations: a conversation started by another one's agent, on this server.

`start_child` makes a conversation with the parent's whole configuration (agent, limits,
hooks, approval policy and rules, secrets) and a fresh history whose first message is the
task, and runs it. Its working directory is the parent's (`shared`), or with `worktree` a
git worktree of the parent's repository, on a branch of its own from the repository's
default branch, in the folder the server gives new conversations. The worktree is made by
git run from the server with hooks and fsmonitor off: a repository's own configuration
cannot make the server run a program.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

from openhands.agent_server.errors import InvalidRequestError
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.sdk.llm import Message, TextContent
from openhands.sdk.wire import StartConversationRequest
from openhands.sdk.wire.children import (
    ChildIsolation,
    StartChildConversationRequest,
    StartChildConversationResponse,
)
from openhands.sdk.workspace import LocalWorkspace

__all__ = ["GIT_TIMEOUT_SECONDS", "make_worktree", "start_child"]

GIT_TIMEOUT_SECONDS = 120.0
"""How long one git command making a worktree may take."""

_SAFE_GIT = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


async def start_child(
    conversations: ConversationRegistry,
    parent_id: uuid.UUID,
    request: StartChildConversationRequest,
) -> StartChildConversationResponse:
    """Start and run a child of `parent_id` (a `NotFoundError` when there is none)."""
    parent = (await conversations.get(parent_id)).conversation
    config = parent.state.config
    child_id = uuid.uuid4()
    working_dir, isolation = config.workspace.working_dir, "shared"
    if request.isolation == "worktree":
        target = conversations.default_workspace(child_id)
        made = await conversations.pools.controls.run_to_completion(
            make_worktree,
            config.workspace.working_dir,
            target,
            f"openhands/child-{child_id.hex[:8]}",
        )
        if made is not None:
            working_dir, isolation = made, "worktree"
    start = StartConversationRequest(
        agent=config.agent,  # type: ignore[arg-type]  # an Agent: the server makes no other
        workspace=LocalWorkspace(working_dir=working_dir),
        conversation_id=child_id,
        max_iterations=config.max_iterations,
        hook_config=config.hook_config,
        confirmation_policy=config.confirmation_policy,
        security_analyzer=config.security_analyzer,
    )
    await conversations.start(start)
    child = await conversations.get(child_id)

    def inherit() -> None:
        conversation = child.conversation
        for rule in config.approval_rules:
            conversation.add_approval_rule(rule)
        sources = parent.state.secret_registry.sources()
        if sources:
            conversation.update_secrets(sources)
        if conversations.secrets is not None:
            conversations.secrets.copy(
                conversations.path / parent_id.hex, conversations.path / child_id.hex
            )
        if request.title:
            with conversation.state.lock:
                conversation.state.title = request.title

    await conversations.pools.controls.run_to_completion(inherit)
    await child.send_message(
        Message(role="user", content=[TextContent(text=request.task)]), run=True
    )
    info = await conversations.info(child_id)
    return StartChildConversationResponse(
        conversation_id=child_id,
        parent_conversation_id=parent_id,
        status=info.execution_status.value,
        title=info.title,
        workspace=working_dir,
        isolation=_isolation(isolation),
    )


def make_worktree(parent_dir: str, target: Path, branch: str) -> str | None:
    """A worktree of the repository holding `parent_dir` at `target`, on a new `branch` from
    the default branch; the working directory there that matches `parent_dir`. None when
    `parent_dir` is not in a git repository (the child then shares it)."""
    top = _git(parent_dir, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    base = _git(top, "rev-parse", "--abbrev-ref", "origin/HEAD") or "HEAD"
    if _git(top, "worktree", "add", "-b", branch, str(target), base, check=True) is None:
        return None
    inside = os.path.relpath(os.path.realpath(parent_dir), os.path.realpath(top))
    return str(target if inside == "." else target / inside)


def _git(cwd: str, *args: str, check: bool = False) -> str | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        done = subprocess.run(
            ["git", *_SAFE_GIT, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        if check:
            raise InvalidRequestError(
                f"could not make a git worktree for the child: {done.stderr.strip()[-500:]}; "
                "use isolation 'shared' instead",
                ("body", "isolation"),
            )
        return None
    return done.stdout.strip()


def _isolation(value: str) -> ChildIsolation:
    return "worktree" if value == "worktree" else "shared"
