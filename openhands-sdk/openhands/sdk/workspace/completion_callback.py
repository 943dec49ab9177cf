"""The automation completion callback: when a script run by an automation service leaves its
workspace's `with` block, the service is told how the run ended and what its LLM calls cost.

Nothing happens unless `AUTOMATION_CALLBACK_URL` is set, so ordinary local use never reaches
the network. The variables (read when the block ends):

| variable | meaning |
|---|---|
| `AUTOMATION_CALLBACK_URL` | where the JSON is POSTed (unset: no callback) |
| `AUTOMATION_CALLBACK_API_KEY` | sent as `Authorization: Bearer <key>` (optional) |
| `AUTOMATION_RUN_ID` | sent as `run_id` (optional) |
| `AUTOMATION_CALLBACK_TIMEOUT` | seconds for the request, default 10 |

The body: `{"status": "COMPLETED" | "FAILED", "run_id"?, "conversation_id"?, "cost"?,
"error"?: {"code": <exception class>, "detail": <message>}}`. The callback is best effort: a
failure to deliver is logged, never raised (the run's own outcome stands).
"""

from __future__ import annotations

import logging
import os
from typing import Any

logger = logging.getLogger(__name__)

CALLBACK_URL_ENV = "AUTOMATION_CALLBACK_URL"
CALLBACK_API_KEY_ENV = "AUTOMATION_CALLBACK_API_KEY"
RUN_ID_ENV = "AUTOMATION_RUN_ID"
CALLBACK_TIMEOUT_ENV = "AUTOMATION_CALLBACK_TIMEOUT"
DEFAULT_CALLBACK_TIMEOUT = 10.0


def completion_payload(
    error: BaseException | None, *, conversation_id: str | None, cost: float | None
) -> dict[str, Any]:
    """The JSON body telling the service how the run ended."""
    payload: dict[str, Any] = {"status": "COMPLETED" if error is None else "FAILED"}
    run_id = os.environ.get(RUN_ID_ENV)
    if run_id:
        payload["run_id"] = run_id
    if conversation_id is not None:
        payload["conversation_id"] = conversation_id
    if cost is not None:
        payload["cost"] = cost
    if error is not None:
        payload["error"] = {"code": type(error).__name__, "detail": str(error)}
    return payload


def _timeout() -> float:
    raw = os.environ.get(CALLBACK_TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_CALLBACK_TIMEOUT
    except ValueError:
        logger.warning(
            "%s=%r is not a number; using %s s", CALLBACK_TIMEOUT_ENV, raw, DEFAULT_CALLBACK_TIMEOUT
        )
        return DEFAULT_CALLBACK_TIMEOUT
    return value if value > 0 else DEFAULT_CALLBACK_TIMEOUT


def send_completion_callback(
    error: BaseException | None, *, conversation_id: str | None, cost: float | None
) -> bool:
    """POST the completion body to `AUTOMATION_CALLBACK_URL`; False when it is unset or the
    delivery failed (logged)."""
    url = os.environ.get(CALLBACK_URL_ENV, "").strip()
    if not url:
        return False
    import httpx  # only when an automation asked for the callback

    headers: dict[str, str] = {}
    key = os.environ.get(CALLBACK_API_KEY_ENV)
    if key:
        headers["Authorization"] = f"Bearer {key}"
    payload = completion_payload(error, conversation_id=conversation_id, cost=cost)
    try:
        with httpx.Client(timeout=_timeout()) as client:
            response = client.post(url, json=payload, headers=headers)
            response.raise_for_status()
    except Exception as exc:  # best effort: the run's outcome must not change
        logger.warning("automation completion callback to %s failed: %s", url, exc)
        return False
    return True
