"""`RemoteClient`: the agent server's conversation API, on the shared `ServerClient`.

Requests are built and answers read with the wire models of `openhands.sdk.wire`, the same
classes the server validates with.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlencode

from openhands.sdk.conversation.goal import GoalRequest, GoalStatus
from openhands.sdk.errors import OpenHandsError
from openhands.sdk.event.base import Event
from openhands.sdk.remote.errors import (
    RemoteServerError,
)
from openhands.sdk.remote.transport import ServerClient
from openhands.sdk.wire import (
    ConversationInfo,
    EventPage,
    GoalStepAnswer,
    GoalStepRequest,
    SendMessageRequest,
    StartConversationRequest,
    to_wire,
)
from pydantic import BaseModel, TypeAdapter, ValidationError

PAGE_LIMIT = 100

M = TypeVar("M", bound=BaseModel)
_GOAL_STATUS = TypeAdapter(GoalStatus | None)


class GoalStatusRouteMissing(OpenHandsError):
    """The server has no GET /{id}/goal (the reference's): read the goal's status events."""


class RemoteClient(ServerClient):
    """Calls one agent server's conversation API; every failure becomes a
    `RemoteConversationError` subclass."""

    # -- conversations ------------------------------------------------------------------------

    def _conv(self, conversation_id: uuid.UUID) -> str:
        return f"/api/conversations/{conversation_id}"

    def read_as(self, model: type[M], body: Any, what: str) -> M:
        """`body` read as `model`; a RemoteServerError if the server answered another shape."""
        try:
            return model.model_validate(body)
        except ValidationError as exc:
            first = str(exc).splitlines()[0]
            raise RemoteServerError(200, f"{what}: not a {model.__name__} ({first})") from exc

    def create_conversation(self, request: StartConversationRequest) -> ConversationInfo:
        """POST /api/conversations: create (or return the existing) conversation."""
        body = self.request("POST", "/api/conversations", json=to_wire(request))
        return self.read_as(ConversationInfo, body, "POST /api/conversations")

    def get_conversation(self, conversation_id: uuid.UUID) -> ConversationInfo:
        """GET /api/conversations/{id}: the ConversationInfo."""
        path = self._conv(conversation_id)
        body = self.request("GET", path, not_found=f"Conversation {conversation_id}")
        return self.read_as(ConversationInfo, body, f"GET {path}")

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
            page = self.read_as(EventPage, body, f"GET {path}")
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
        return self.read_as(GoalStepAnswer, body, f"POST {path}")

    def goal_action(
        self, conversation_id: uuid.UUID, action: str, body: dict[str, Any] | None = None
    ) -> None:
        """POST /{id}/goal/stop or /{id}/goal/resume (with its optional body)."""
        self.request(
            "POST",
            f"{self._conv(conversation_id)}/goal/{action}",
            json=body,
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
