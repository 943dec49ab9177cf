"""`RemoteClient`: the agent server's REST API over a sync httpx client, errors mapped.

Requests are built and answers read with the wire models of `openhands.sdk.wire`, the same
classes the server validates with.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlencode

import httpx
from openhands.sdk.conversation.errors import ConversationAlreadyRunningError
from openhands.sdk.conversation.goal import GoalRequest, GoalStatus
from openhands.sdk.conversation.remote.errors import (
    RemoteAuthenticationError,
    RemoteConnectionError,
    RemoteConversationNotFoundError,
    RemoteRequestError,
    RemoteServerError,
)
from openhands.sdk.errors import OpenHandsError
from openhands.sdk.event.base import Event
from openhands.sdk.wire import (
    ConversationInfo,
    ErrorResponse,
    EventPage,
    GoalStepAnswer,
    GoalStepRequest,
    SendMessageRequest,
    StartConversationRequest,
    to_wire,
)
from pydantic import BaseModel, SecretStr, TypeAdapter, ValidationError

API_KEY_HEADER = "X-Session-API-Key"
PAGE_LIMIT = 100

M = TypeVar("M", bound=BaseModel)
_GOAL_STATUS = TypeAdapter(GoalStatus | None)


def _detail(response: httpx.Response) -> str:
    """The server's error as one readable line: its `message`, else the body as text."""
    try:
        return ErrorResponse.model_validate_json(response.content).message
    except ValidationError:
        return response.text.strip()[:500] or response.reason_phrase


class GoalStatusRouteMissing(OpenHandsError):
    """The server has no GET /{id}/goal (the reference's): read the goal's status events."""


class RemoteClient:
    """Calls one agent server; every failure becomes a `RemoteConversationError` subclass."""

    def __init__(self, host: str, api_key: SecretStr | None, timeout: float = 30.0) -> None:
        """Prepare a client for `host` (an http(s) URL) sending `api_key` when given."""
        self.host = host.rstrip("/")
        self._api_key = api_key.get_secret_value() if api_key is not None else None
        headers = {API_KEY_HEADER: self._api_key} if self._api_key else {}
        self._http = httpx.Client(base_url=self.host, headers=headers, timeout=timeout)

    @property
    def headers(self) -> dict[str, str]:
        """Headers every request carries (the session key, when set)."""
        return {API_KEY_HEADER: self._api_key} if self._api_key else {}

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    # -- transport ----------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        not_found: str | None = None,
    ) -> Any:
        """Send one request and return its JSON body; map errors to specific exceptions.

        `not_found` names what a 404 means is missing (e.g. "Conversation <id>"); a 404 on a
        call without it means the URL is not an agent server at all.
        """
        try:
            response = self._http.request(method, path, json=json, params=params)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise RemoteConnectionError(self.host, str(exc) or type(exc).__name__) from exc
        except (httpx.TimeoutException, httpx.RemoteProtocolError) as exc:
            cause = f"{type(exc).__name__} on {method} {path}"
            raise RemoteConnectionError(self.host, cause) from exc
        status = response.status_code
        if status < 400:
            if not response.content:
                return None
            try:
                return response.json()
            except ValueError as exc:
                raise RemoteServerError(status, f"not JSON: {response.text[:200]!r}") from exc
        detail = _detail(response)
        if status in (401, 403):
            raise RemoteAuthenticationError(self.host, status, self._api_key is not None)
        if status == 404:
            if not_found is None:
                raise RemoteConnectionError(
                    self.host,
                    f"{method} {path} answered 404 ({detail}), so this URL is not an agent "
                    "server's root; drop any path after host:port",
                )
            raise RemoteConversationNotFoundError(
                f"{not_found} was not found on the agent server at {self.host} "
                f"({method} {path}: {detail}). It was deleted or never existed; create a new "
                "conversation."
            )
        if status == 409:
            raise ConversationAlreadyRunningError(detail)
        if status in (400, 422):
            raise RemoteRequestError(status, detail)
        raise RemoteServerError(status, detail)

    # -- conversations ------------------------------------------------------------------------

    def _conv(self, conversation_id: uuid.UUID) -> str:
        return f"/api/conversations/{conversation_id}"

    def _answer(self, model: type[M], body: Any, what: str) -> M:
        """`body` read as `model`; a RemoteServerError if the server answered another shape."""
        try:
            return model.model_validate(body)
        except ValidationError as exc:
            first = str(exc).splitlines()[0]
            raise RemoteServerError(200, f"{what}: not a {model.__name__} ({first})") from exc

    def create_conversation(self, request: StartConversationRequest) -> ConversationInfo:
        """POST /api/conversations: create (or return the existing) conversation."""
        body = self.request("POST", "/api/conversations", json=to_wire(request))
        return self._answer(ConversationInfo, body, "POST /api/conversations")

    def get_conversation(self, conversation_id: uuid.UUID) -> ConversationInfo:
        """GET /api/conversations/{id}: the ConversationInfo."""
        path = self._conv(conversation_id)
        body = self.request("GET", path, not_found=f"Conversation {conversation_id}")
        return self._answer(ConversationInfo, body, f"GET {path}")

    def send_message(self, conversation_id: uuid.UUID, message: SendMessageRequest) -> None:
        """POST /{id}/events: append a user message."""
        self.request(
            "POST",
            f"{self._conv(conversation_id)}/events",
            json=to_wire(message),
            not_found=f"Conversation {conversation_id}",
        )

    def run(self, conversation_id: uuid.UUID) -> None:
        """POST /{id}/run: start a run in the background (409 if one is running)."""
        self.request(
            "POST",
            f"{self._conv(conversation_id)}/run",
            not_found=f"Conversation {conversation_id}",
        )

    def post_json(self, conversation_id: uuid.UUID, route: str, body: dict[str, Any]) -> None:
        """POST `body` to /{id}/<route> (a setting or an answer; 409 when it does not apply)."""
        self.request(
            "POST",
            f"{self._conv(conversation_id)}/{route}",
            json=body,
            not_found=f"Conversation {conversation_id}",
        )

    def pause(self, conversation_id: uuid.UUID) -> None:
        """POST /{id}/pause: ask the running agent to stop after its current step."""
        self.request(
            "POST",
            f"{self._conv(conversation_id)}/pause",
            not_found=f"Conversation {conversation_id}",
        )

    def count_events(self, conversation_id: uuid.UUID) -> int:
        """GET /{id}/events/count."""
        return int(
            self.request(
                "GET",
                f"{self._conv(conversation_id)}/events/count",
                not_found=f"Conversation {conversation_id}",
            )
        )

    def iter_events(self, conversation_id: uuid.UUID) -> Iterator[Event]:
        """Every event of the conversation, oldest first, paging through events/search."""
        path = f"{self._conv(conversation_id)}/events/search"
        page_id: str | None = None
        while True:
            params: dict[str, Any] = {"limit": PAGE_LIMIT}
            if page_id:
                params["page_id"] = page_id
            body = self.request(
                "GET", path, params=params, not_found=f"Conversation {conversation_id}"
            )
            page = self._answer(EventPage, body, f"GET {path}")
            yield from page.items
            page_id = page.next_page_id
            if not page_id:
                return

    # -- goals --------------------------------------------------------------------------------

    def start_goal(self, conversation_id: uuid.UUID, request: GoalRequest) -> None:
        """POST /{id}/goal: start the goal loop."""
        self.request(
            "POST",
            f"{self._conv(conversation_id)}/goal",
            json=to_wire(request),
            not_found=f"Conversation {conversation_id}",
        )

    def goal_status(self, conversation_id: uuid.UUID) -> GoalStatus | None:
        """GET /{id}/goal: the latest GoalStatus, or None when no goal ever ran.

        Raises `GoalStatusRouteMissing` for a server without that route (the reference's,
        which answers 405: its route only takes POST); the status is then in the events.
        """
        path = f"{self._conv(conversation_id)}/goal"
        try:
            body = self.request("GET", path, not_found=f"Conversation {conversation_id}")
        except RemoteServerError as exc:
            if exc.status_code == 405:
                raise GoalStatusRouteMissing(path) from exc
            raise
        try:
            return _GOAL_STATUS.validate_python(body)
        except ValidationError as exc:
            first = str(exc).splitlines()[0]
            raise RemoteServerError(200, f"GET {path}: not a GoalStatus ({first})") from exc

    def perform_goal_step(
        self, conversation_id: uuid.UUID, request: GoalStepRequest
    ) -> GoalStepAnswer:
        """POST /{id}/goal/steps: a step of the goal's remote run (a long poll)."""
        path = f"{self._conv(conversation_id)}/goal/steps"
        body = self.request(
            "POST", path, json=to_wire(request), not_found=f"Conversation {conversation_id}"
        )
        return self._answer(GoalStepAnswer, body, f"POST {path}")

    def goal_action(self, conversation_id: uuid.UUID, action: str) -> None:
        """POST /{id}/goal/stop or /{id}/goal/resume."""
        self.request(
            "POST",
            f"{self._conv(conversation_id)}/goal/{action}",
            not_found=f"Conversation {conversation_id}",
        )

    # -- sockets ------------------------------------------------------------------------------

    def socket_url(
        self, conversation_id: uuid.UUID, after: str | None, since: datetime | None = None
    ) -> str:
        """The events WebSocket URL: replay after `after` (an event id), or everything.

        `since` (the time stamp of that event) is sent too, as `resend_mode=since`: a server
        that does not know `after` (the reference's) then replays from that time, and the
        mirror drops the events it already has by id.
        """
        base = "ws" + self.host.removeprefix("http")
        # The key goes in a header (see `headers`), never the URL: URLs end up in access logs.
        query = {"after": after} if after else {"resend_all": "true"}
        if after and since is not None:
            query |= {"resend_mode": "since", "after_timestamp": since.isoformat()}
        return f"{base}/sockets/events/{conversation_id}?{urlencode(query)}"
