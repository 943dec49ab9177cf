"""`Workspace(...)`: a local or a remote workspace, from the arguments given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openhands.sdk.workspace.local import LocalWorkspace
from openhands.sdk.workspace.remote.base import RemoteWorkspace


class Workspace:
    """Factory, as in the reference SDK: `Workspace(host=URL, ...)` is a `RemoteWorkspace` on
    that agent server; `Workspace(working_dir=...)` a `LocalWorkspace`."""

    def __new__(  # type: ignore[misc]
        cls, *, host: str | None = None, working_dir: str | Path = ".", **kwargs: Any
    ) -> LocalWorkspace | RemoteWorkspace:
        if host is not None:
            return RemoteWorkspace(host=host, working_dir=str(working_dir), **kwargs)
        return LocalWorkspace(working_dir=Path(working_dir), **kwargs)
