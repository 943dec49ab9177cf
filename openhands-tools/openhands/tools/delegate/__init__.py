"""Delegation: the `delegate` tool (named sub-agents working in parallel) and the
`DelegationVisualizer` that shows each agent's events under its own name."""

from openhands.tools.delegate.definition import (
    DelegateAction,
    DelegateExecutor,
    DelegateObservation,
    DelegateParams,
    DelegateTool,
)
from openhands.tools.delegate.visualizer import DelegationVisualizer

__all__ = [
    "DelegateAction",
    "DelegateExecutor",
    "DelegateObservation",
    "DelegateParams",
    "DelegateTool",
    "DelegationVisualizer",
]
