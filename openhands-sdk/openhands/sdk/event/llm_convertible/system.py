"""`SystemPromptEvent` (a conversation's first event), under the reference SDK's module name."""

from openhands.sdk.event.message import SystemPromptEvent

__all__ = ["SystemPromptEvent"]
