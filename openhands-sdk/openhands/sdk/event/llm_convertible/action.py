"""`ActionEvent` (a tool call the agent made), under the reference SDK's module name."""

from openhands.sdk.event.action import ActionEvent

__all__ = ["ActionEvent"]
