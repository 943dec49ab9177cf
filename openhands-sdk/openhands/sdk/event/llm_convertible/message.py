"""`MessageEvent` (a user or agent message), under the reference SDK's module name."""

from openhands.sdk.event.message import MessageEvent

__all__ = ["MessageEvent"]
