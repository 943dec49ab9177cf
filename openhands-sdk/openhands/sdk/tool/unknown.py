"""Generic stand-ins for stored actions and observations whose class is not loaded.

Imported on first use (reading such an event), so importing the SDK does not pay for them.
"""

from __future__ import annotations

from typing import ClassVar

from openhands.sdk.tool.schema import Action, Observation
from pydantic import ConfigDict, PrivateAttr

__all__ = ["UnknownAction", "UnknownObservation"]


class UnknownAction(Action):
    """Arguments of a tool call whose Action class is not loaded; keeps every field."""

    model_config = ConfigDict(defer_build=True, extra="allow")

    stores_kind: ClassVar[bool] = True
    _kind: str | None = PrivateAttr(default=None)


class UnknownObservation(Observation):
    """A result whose Observation class is not loaded; keeps every field."""

    model_config = ConfigDict(defer_build=True, extra="allow")

    stores_kind: ClassVar[bool] = True
    _kind: str | None = PrivateAttr(default=None)
