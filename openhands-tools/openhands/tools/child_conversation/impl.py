"""`StartChildConversationExecutor`: POSTs the launch and reports the child to the agent."""

from __future__ import annotations

import json
import os
import uuid
from typing import Any

import httpx
from openhands.sdk.tool import ToolExecutor
from openhands.sdk.wire.children import (
    StartChildConversationRequest,
    StartChildConversationResponse,
)
from openhands.tools.child_conversation.schema import (
    StartChildConversationAction,
    StartChildConversationObservation,
)
from pydantic import ValidationError

__all__ = [
    "DEFAULT_INTERNAL_SERVER_URL",
    "INTERNAL_SERVER_URL_ENV",
    "StartChildConversationExecutor",
    "default_launch_url",
    "session_api_key_headers",
]

INTERNAL_SERVER_URL_ENV = "OH_INTERNAL_SERVER_URL"
"""The agent server's own base URL (it sets it at start when not given)."""
DEFAULT_INTERNAL_SERVER_URL = "http://127.0.0.1:8000"
SESSION_KEY_ENVS = ("OH_SESSION_API_KEYS", "SESSION_API_KEY")
"""Where the server's own session key is found (the first of a comma-separated list)."""
SESSION_API_KEY_HEADER = "X-Session-API-Key"


def default_launch_url(parent_conversation_id: uuid.UUID | str) -> str:
    """The child-launch route of the agent server running this tool."""
    base = os.environ.get(INTERNAL_SERVER_URL_ENV, DEFAULT_INTERNAL_SERVER_URL).rstrip("/")
    return f"{base}/api/conversations/{parent_conversation_id}/children"


def session_api_key_headers() -> dict[str, str]:
    """The server's own session key as a header (none when the server has no keys)."""
    for name in SESSION_KEY_ENVS:
        value = os.environ.get(name, "").split(",")[0].strip()
        if value:
            return {SESSION_API_KEY_HEADER: value}
    return {}


class StartChildConversationExecutor(
    ToolExecutor[StartChildConversationAction, StartChildConversationObservation]
):
    """Sends `StartChildConversationRequest` to the launcher, reads its answer."""

    def __init__(
        self,
        parent_conversation_id: uuid.UUID | str | None,
        launch_url: str | None = None,
        timeout: float = 300.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.parent_conversation_id = parent_conversation_id
        self.launch_url = launch_url
        self.timeout = timeout
        self._transport = transport

    def __call__(
        self, action: StartChildConversationAction, conversation: Any = None
    ) -> StartChildConversationObservation:
        """Launch the child; an error observation says why none was started."""
        parent = self.parent_conversation_id or getattr(conversation, "id", None)
        if parent is None and self.launch_url is None:
            return _error("A child conversation needs a parent conversation with an id.")
        url = self.launch_url or default_launch_url(uuid.UUID(str(parent)).hex)
        try:
            body = StartChildConversationRequest(
                task=action.task, title=action.title, isolation=action.isolation
            ).model_dump(mode="json")
        except ValidationError as exc:
            return _error(f"Invalid child conversation request: {exc}")
        try:
            with httpx.Client(timeout=self.timeout, transport=self._transport) as client:
                answer = client.post(url, json=body, headers=session_api_key_headers())
            answer.raise_for_status()
            result = StartChildConversationResponse.model_validate(answer.json())
        except httpx.HTTPStatusError as exc:
            return _error(
                f"The child conversation was not started ({exc.response.status_code}): "
                f"{_detail(exc.response)}"
            )
        except httpx.TimeoutException:
            return _error(
                f"The launch did not answer within {self.timeout:g} s. The child may have "
                "been started anyway: check with the user before trying again."
            )
        except (httpx.HTTPError, ValueError) as exc:
            return _error(f"The child conversation was not started: {type(exc).__name__}: {exc}")
        summary = json.dumps(result.model_dump(mode="json"), indent=2)
        return StartChildConversationObservation.from_text(
            f"Started child conversation {result.conversation_id} (status: {result.status}).\n"
            f"{summary}",
            conversation_id=str(result.conversation_id),
            parent_conversation_id=str(result.parent_conversation_id),
            status=result.status,
            title=result.title,
            url=result.url,
            workspace=result.workspace,
            isolation=result.isolation,
        )


def _detail(response: httpx.Response) -> str:
    try:
        detail = response.json().get("detail")
    except (ValueError, AttributeError):
        detail = None
    if isinstance(detail, str) and detail:
        return detail
    return json.dumps(detail) if detail is not None else response.text[:500]


def _error(text: str) -> StartChildConversationObservation:
    return StartChildConversationObservation.from_text(text, is_error=True)
