"""The answers to tool calls, under the reference SDK's module name."""

from openhands.sdk.event.action import AgentErrorEvent, ObservationEvent, UserRejectObservation

__all__ = ["AgentErrorEvent", "ObservationEvent", "UserRejectObservation"]
