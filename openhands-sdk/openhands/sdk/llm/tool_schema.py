"""`LLMTool`: what the LLM needs from a tool, so the LLM layer does not depend on tools.

A `ToolDefinition` (openhands.sdk.tool) satisfies it; so does anything that can render its
OpenAI function schema.
"""

from __future__ import annotations

from typing import Any, Protocol


class LLMTool(Protocol):
    """A tool the LLM can offer the model: it renders its own OpenAI function schema."""

    def to_openai_tool(self, add_security_risk_prediction: bool = False) -> dict[str, Any]:
        """The `{"type": "function", "function": {...}}` dict sent to the model; with
        `add_security_risk_prediction`, a tool that changes things asks for a `security_risk`."""
        ...
