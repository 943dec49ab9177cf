"""Workspaces: where an agent's tools run."""

from openhands.sdk.workspace.local import CommandResult, LocalWorkspace
from openhands.sdk.workspace.remote import RemoteWorkspace

__all__ = ["CommandResult", "LocalWorkspace", "RemoteWorkspace"]
