"""`OpenAIErrors`: every error answered under /v1 in OpenAI's shape.

OpenAI clients (the `openai` Python and npm packages, Codex, LangChain) read an error's
`{"error": {"message", "type", "code", "param"}}`; with this server's own shape they show
"404 status code (no body)". Outermost on the app, so it also reshapes what the edge answers
before any route runs (401 without a key, 413, 421, 503 while dormant) and what no route
matches (404, 405). Other paths keep `{"message", "detail"}`.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PREFIX = "/v1"

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    409: "conflict_error",
    413: "invalid_request_error",
    421: "invalid_request_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
}
"""OpenAI's `error.type` by status (anything 5xx is `server_error`)."""

ERROR_CODES = {401: "invalid_api_key", 404: "not_found", 413: "request_too_large"}
"""`error.code` by status, when the answer carries no code of its own."""


def openai_error(status: int, body: bytes) -> dict[str, Any]:
    """This server's error body (`{"message", "detail"}`) in OpenAI's shape."""
    try:
        data = json.loads(body) if body else {}
    except ValueError:
        data = {"message": body.decode("utf-8", "replace")}
    if not isinstance(data, dict):
        data = {}
    if isinstance(data.get("error"), dict):
        return data  # already OpenAI's shape
    message = str(data.get("message") or data.get("detail") or f"HTTP {status}")
    detail = data.get("detail")
    code: str | None = ERROR_CODES.get(status)
    param: str | None = None
    if isinstance(detail, str) and detail != message:
        code = detail  # a stable code (e.g. "no_resumable_goal")
    elif isinstance(detail, list) and detail and isinstance(detail[0], dict):
        loc = [str(p) for p in detail[0].get("loc", []) if p not in ("body", "query", "path")]
        param = ".".join(loc) or None
        code = str(detail[0].get("type") or "") or None
    kind = "server_error" if status >= 500 else ERROR_TYPES.get(status, "invalid_request_error")
    return {"error": {"message": message, "type": kind, "code": code, "param": param}}


class OpenAIErrors:
    """ASGI middleware: reshape error answers of /v1 paths (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; buffer and reshape an error answer of a /v1 path."""
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not (path == PREFIX or path.startswith(PREFIX + "/")):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        chunks: list[bytes] = []

        async def reshaping_send(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if message["status"] < 400:
                    await send(message)
                    return
                start = message
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = json.dumps(openai_error(start["status"], b"".join(chunks))).encode()
            headers = [
                (name, value)
                for name, value in start.get("headers", [])
                if name.lower() not in (b"content-length", b"content-type")
            ]
            headers += [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ]
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, reshaping_send)
