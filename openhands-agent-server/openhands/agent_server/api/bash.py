"""REST route for one shell command on the server: what `RemoteWorkspace.execute_command` uses.

The command runs like the agent's terminal and `verify`: bash with the agent's environment
(the server's own secrets removed), its whole process tree killed at `timeout`, in a run
thread. Anyone who may create a conversation may already run commands through its terminal,
so this route asks for the same session key and nothing more.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends
from openhands.agent_server.api.deps import registry
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.sdk.wire import ExecuteCommandRequest
from openhands.sdk.workspace import LocalWorkspace
from openhands.sdk.workspace.shell import CommandResult, run_shell

router = APIRouter(prefix="/api/bash", tags=["bash"], route_class=CheckedRoute)

Registry = Annotated[ConversationRegistry, Depends(registry)]


@router.post("/execute_bash_command", response_model=CommandResult, responses=error_responses())
async def execute_bash_command(
    request: ExecuteCommandRequest, conversations: Registry
) -> CommandResult:
    """Run `command` in `cwd` (default: the workspace folder) and answer when it ends.

    A failing command is an answer with its exit code, not an HTTP error; a timeout kills it
    (exit code 124, `timed_out`).
    """
    folder = Path(request.cwd) if request.cwd else conversations.config.workspace_path
    workspace = LocalWorkspace(working_dir=str(folder))

    def run() -> CommandResult:
        return run_shell(request.command, workspace.ensure_exists(), timeout=request.timeout)

    return await conversations.pools.runs.run(run)
