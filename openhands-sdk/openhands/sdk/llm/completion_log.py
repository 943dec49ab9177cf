"""`log_completions`: one JSON file per completion, for debugging prompts and costs.

Each file holds the messages and tools sent, the request settings (credentials and header
values removed), the provider's raw response (the JSON body from the native transport,
litellm's response object dumped from litellm), the cost and the latency. Files are named
`<model>-<unix time>-<n>.json` in `log_completions_folder`.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import time
import warnings
from pathlib import Path
from typing import Any

from openhands.sdk.llm.llm_response import LLMResponse

logger = logging.getLogger(__name__)

SECRET_PARAMS = frozenset(
    {"api_key", "aws_access_key_id", "aws_secret_access_key", "aws_session_token"}
)
_counter = itertools.count()


def write_completion_log(
    folder: str, request: dict[str, Any], response: LLMResponse
) -> Path | None:
    """Write one completion's record under `folder`; never raises (a failure is logged)."""
    try:
        target = Path(folder)
        target.mkdir(parents=True, exist_ok=True)
        model = str(request.get("model", "model"))
        name = f"{re.sub(r'[^A-Za-z0-9._-]+', '_', model)}-{time.time():.3f}-{next(_counter)}.json"
        settings = {
            key: value
            for key, value in request.items()
            if key not in SECRET_PARAMS and key not in ("messages", "tools")
        }
        if isinstance(settings.get("extra_headers"), dict):
            # Header values may carry credentials (Authorization); keep only the names.
            settings["extra_headers"] = {key: "<hidden>" for key in settings["extra_headers"]}
        raw = response.raw_response
        if isinstance(raw, dict):  # the native transport's answer: the JSON body itself
            dumped: Any = raw
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # litellm's models warn while serializing
                dumped = raw.model_dump() if hasattr(raw, "model_dump") else None
        record = {
            "messages": request.get("messages", []),
            "tools": request.get("tools"),
            "kwargs": settings,
            "response": dumped,
            "message": response.message.model_dump(mode="json"),
            "cost": response.cost,
            "latency": response.latency,
            "timestamp": time.time(),
        }
        path = target / name
        path.write_text(json.dumps(record, default=str, indent=1), encoding="utf-8")
        return path
    except Exception as exc:  # debugging aid only: it must never fail a completion
        logger.warning("Could not write the completion log to %s: %s", folder, exc)
        return None
