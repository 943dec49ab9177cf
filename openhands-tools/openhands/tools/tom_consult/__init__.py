"""Tom (theory of mind) consultation: advice about what the user means, from the `tom-swe`
package's Tom agent, and `sleeptime_compute`, which indexes past conversations for it.

Tom is an outside package (`pip install tom-swe`) with an LLM of its own (`llm_model`,
`api_key`, `api_base` params). Without it, both tools answer with an error observation that
says so; nothing fails at import or when the agent is built.
"""

from openhands.tools.tom_consult.definition import (
    ConsultTomAction,
    ConsultTomObservation,
    SleeptimeComputeAction,
    SleeptimeComputeObservation,
    SleeptimeComputeTool,
    TomConsultTool,
)

__all__ = [
    "ConsultTomAction",
    "ConsultTomObservation",
    "SleeptimeComputeAction",
    "SleeptimeComputeObservation",
    "SleeptimeComputeTool",
    "TomConsultTool",
]
