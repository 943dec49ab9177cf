"""Workspaces: where an agent's tools run, and how processes are started for the agent."""

from openhands.sdk.workspace.agent_env import (
    AGENT_ENV_VAR,
    agent_environment,
    configure_agent_environment,
    is_denied,
)
from openhands.sdk.workspace.factory import Workspace
from openhands.sdk.workspace.local import LocalWorkspace
from openhands.sdk.workspace.processes import (
    kill_process_group,
    register_process_group,
    unregister_process_group,
)
from openhands.sdk.workspace.remote import RemoteWorkspace
from openhands.sdk.workspace.shell import CommandResult, run_shell

__all__ = [
    "AGENT_ENV_VAR",
    "CommandResult",
    "LocalWorkspace",
    "RemoteWorkspace",
    "Workspace",
    "agent_environment",
    "configure_agent_environment",
    "is_denied",
    "kill_process_group",
    "register_process_group",
    "run_shell",
    "unregister_process_group",
]
