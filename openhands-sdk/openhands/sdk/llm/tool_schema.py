"""`LLMTool`: what the LLM needs from a tool, so the LLM layer does not depend on tools.

A `ToolDefinition` (openhands.sdk.tool) satisfies it; so does anything that can render its
OpenAI function schema.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class LLMTool(Protocol):
    """A tool the LLM can offer the model: it renders its own OpenAI function schema."""

    def to_openai_tool(self, add_security_risk_prediction: bool = False) -> dict[str, Any]:
        """The `{"type": "function", "function": {...}}` dict sent to the model; with
        `add_security_risk_prediction`, a tool that changes things asks for a `security_risk`."""
        ...


def openai_tool_dicts(
    tools: Sequence[LLMTool | dict[str, Any]] | None, add_security_risk: bool
) -> list[dict[str, Any]] | None:
    """OpenAI tool dicts for `tools` (definitions are rendered, dicts kept)."""
    if not tools:
        return None
    out: list[dict[str, Any]] = []
    for tool in tools:
        if isinstance(tool, dict):
            out.append(tool)
        else:
            out.append(tool.to_openai_tool(add_security_risk_prediction=add_security_risk))
    return out
