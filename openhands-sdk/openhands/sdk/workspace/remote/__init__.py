"""`RemoteWorkspace`: a workspace on an agent server (commands, stored settings and secrets)."""

from openhands.sdk.workspace.remote.base import RemoteWorkspace

__all__ = ["RemoteWorkspace"]
