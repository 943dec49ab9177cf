"""`ask_oracle`: a one-shot second opinion from a stronger model, the saved LLM profile
named `oracle`.

The call sends only a short system prompt, the agent's question and its optional context:
no history, no tools. The conversation's own LLM is never switched; the Oracle's usage is
counted under usage_id `oracle:oracle`.
"""

from openhands.tools.ask_oracle.definition import (
    ORACLE_PROFILE_NAME,
    AskOracleAction,
    AskOracleObservation,
    AskOracleTool,
)
from openhands.tools.ask_oracle.impl import AskOracleExecutor

__all__ = [
    "ORACLE_PROFILE_NAME",
    "AskOracleAction",
    "AskOracleExecutor",
    "AskOracleObservation",
    "AskOracleTool",
]
