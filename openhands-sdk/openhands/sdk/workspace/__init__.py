"""Workspaces: where an agent's tools run."""

from openhands.sdk.workspace.local import LocalWorkspace
from openhands.sdk.workspace.remote import RemoteWorkspace
from openhands.sdk.workspace.shell import CommandResult, run_shell

__all__ = ["CommandResult", "LocalWorkspace", "RemoteWorkspace", "run_shell"]
