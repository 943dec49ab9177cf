"""Context condensers: keep a long conversation's LLM view inside the model's context window
(the event log keeps everything). See docs/condenser.md."""

from typing import Annotated

from openhands.sdk.context.condenser.base import CondenserBase
from openhands.sdk.context.condenser.llm_summarizing_condenser import LLMSummarizingCondenser
from openhands.sdk.context.condenser.no_op_condenser import NoOpCondenser
from pydantic import Field

Condenser = Annotated[NoOpCondenser | LLMSummarizingCondenser, Field(discriminator="kind")]
"""Any built-in condenser, read from JSON by its `kind`."""

__all__ = ["Condenser", "CondenserBase", "LLMSummarizingCondenser", "NoOpCondenser"]
