"""`ServerClient`: one agent server over a sync httpx client, with its errors mapped.

The transport a `RemoteWorkspace` and a `RemoteConversation` share: the session key header,
JSON bodies, and each failure as a specific `RemoteConversationError` naming the fix.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
from openhands.sdk.conversation.errors import ConversationAlreadyRunningError
from openhands.sdk.remote.errors import (
    RemoteAuthenticationError,
    RemoteConflictError,
    RemoteConnectionError,
    RemoteConversationNotFoundError,
    RemoteRequestError,
    RemoteServerError,
)
from openhands.sdk.wire import ErrorResponse
from pydantic import SecretStr, ValidationError

API_KEY_HEADER = "X-Session-API-Key"
"""The header that carries the session API key."""


_CODE = re.compile(r"^[a-z][a-z0-9_]*$")

RESENDABLE = frozenset({"GET", "HEAD"})
"""Methods sent a second time, on a new connection, when the first attempt's connection broke
before any answer came: a read changes nothing, so sending it twice is harmless."""

KEEPALIVE_SECONDS = 2.0
"""How long an idle connection is kept for the next request: below the agent server's own
keep-alive (5 s by default), so the client lets a connection go before the server closes it."""


def _detail(response: httpx.Response) -> tuple[str, str | None]:
    """The server's error as one readable line (its `message`, else the body as text), and
    its stable code when it gives one (`detail`, e.g. "no_condenser")."""
    try:
        error = ErrorResponse.model_validate_json(response.content)
    except ValidationError:
        return response.text.strip()[:500] or response.reason_phrase, None
    code = error.detail if isinstance(error.detail, str) and _CODE.match(error.detail) else None
    return error.message, code


class ServerClient:
    """Sends requests to one agent server; every failure becomes a `RemoteConversationError`
    subclass. The remote workspace uses it as it is; `RemoteClient` adds the conversations."""

    def __init__(self, host: str, api_key: SecretStr | None, timeout: float = 30.0) -> None:
        """Prepare a client for `host` (an http(s) URL) sending `api_key` when given."""
        self.host = host.rstrip("/")
        self._api_key = api_key.get_secret_value() if api_key is not None else None
        headers = {API_KEY_HEADER: self._api_key} if self._api_key else {}
        self._http = httpx.Client(
            base_url=self.host,
            headers=headers,
            timeout=timeout,
            limits=httpx.Limits(keepalive_expiry=KEEPALIVE_SECONDS),
        )

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
        response = self._send(method, path, json=json, params=params)
        status = response.status_code
        if status < 400:
            if not response.content:
                return None
            try:
                return response.json()
            except ValueError as exc:
                raise RemoteServerError(status, f"not JSON: {response.text[:200]!r}") from exc
        detail, code = _detail(response)
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
                "conversation.",
                code=code,
                detail=detail,
            )
        if status == 409:
            if code is not None:
                raise RemoteConflictError(code, detail)
            raise ConversationAlreadyRunningError(detail)
        if status in (400, 422):
            raise RemoteRequestError(status, detail)
        raise RemoteServerError(status, detail)

    def _send(
        self, method: str, path: str, *, json: Any, params: dict[str, Any] | None
    ) -> httpx.Response:
        """One request; a read whose kept-alive connection the server closed as it was sent
        (a reset, or a close without an answer) goes again once on a fresh connection."""
        resend = method.upper() in RESENDABLE
        while True:
            try:
                return self._http.request(method, path, json=json, params=params)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                raise RemoteConnectionError(self.host, str(exc) or type(exc).__name__) from exc
            except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as exc:
                if resend:
                    resend = False
                    continue
                cause = f"{type(exc).__name__} on {method} {path}: {exc}"
                raise RemoteConnectionError(self.host, cause) from exc
            except httpx.TransportError as exc:  # timeouts and the rest of httpx's failures
                cause = f"{type(exc).__name__} on {method} {path}"
                raise RemoteConnectionError(self.host, cause) from exc
