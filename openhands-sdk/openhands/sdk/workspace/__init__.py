"""Workspaces: where an agent's tools run, and how processes are started for the agent (in
which sandbox, with which environment).

`RemoteWorkspace` and `Workspace(...)` live in `openhands.sdk.remote`, above this package;
they are handed on here on first read (the reference SDK's path), so loading this package
never loads them.
"""

from openhands.sdk.utils.lazy import lazy_exports
from openhands.sdk.workspace.agent_env import (
    AGENT_ENV_VAR,
    agent_environment,
    configure_agent_environment,
    is_denied,
)
from openhands.sdk.workspace.local import LocalWorkspace
from openhands.sdk.workspace.processes import (
    kill_process_group,
    register_process_group,
    unregister_process_group,
)
from openhands.sdk.workspace.sandbox import (
    SandboxMode,
    SandboxPolicy,
    SandboxStatus,
    SandboxUnavailableError,
    UnsafeWorkspaceError,
    check_workspace,
    claim_workspace,
    configure_sandbox,
    release_workspace,
    sandbox_command,
    sandbox_status,
)
from openhands.sdk.workspace.sandbox_popen import SandboxedProcess, sandbox_popen
from openhands.sdk.workspace.shell import CommandResult, run_shell

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "RemoteWorkspace": "openhands.sdk.remote.workspace",
        "Workspace": "openhands.sdk.remote.factory",
    },
)

__all__ = [
    "AGENT_ENV_VAR",
    "CommandResult",
    "LocalWorkspace",
    "SandboxMode",
    "SandboxPolicy",
    "SandboxStatus",
    "SandboxUnavailableError",
    "SandboxedProcess",
    "UnsafeWorkspaceError",
    "agent_environment",
    "check_workspace",
    "claim_workspace",
    "configure_agent_environment",
    "configure_sandbox",
    "is_denied",
    "kill_process_group",
    "register_process_group",
    "release_workspace",
    "run_shell",
    "sandbox_command",
    "sandbox_popen",
    "sandbox_status",
    "unregister_process_group",
]
