"""Whether a wire body is being read: models that drop unknown fields themselves (`LLM`)
leave them to the wire's version-skew rule then, so one log line names them all."""

from __future__ import annotations

import contextvars

READING_WIRE_BODY: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "openhands_reading_wire_body", default=False
)
"""True while `openhands.sdk.wire.WireModel` validates a body."""
