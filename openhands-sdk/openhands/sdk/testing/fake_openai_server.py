"""`FakeOpenAIServer`: a scriptable OpenAI-compatible chat-completions server on 127.0.0.1.

It lets tests and examples drive the real LLM code path (HTTP, retries, streaming; the native
transport or litellm) without a provider; it records each request's body and headers. Replies are queued per model name; a responder function can answer
dynamically once a queue is empty.

    with FakeOpenAIServer() as server:
        server.script("agent", [FakeReply.text("hello"), FakeReply.error(500, "boom")])
        llm = LLM(model="openai/agent", base_url=server.base_url, api_key=SecretStr("k"))
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from openhands.sdk.errors import InvalidArgumentTypeError, InvalidStateError
from openhands.sdk.testing.fake_reply import (
    FakeReply,
    completion_body,
    error_body,
    stream_chunks,
)

logger = logging.getLogger(__name__)

FALLBACK_MODEL = "*"
"""The model name whose queue and responder answer any model without its own."""

Responder = Callable[[dict[str, Any]], FakeReply]
"""A function from the request body (a dict) to the reply to send."""


class FakeOpenAIServer:
    """An OpenAI-compatible HTTP server on 127.0.0.1 answering from per-model scripts.

    Serves `POST /v1/chat/completions` (also `/chat/completions`), with or without
    `"stream": true`, and `GET /v1/models`. Runs in a daemon thread; use it as a context
    manager or call `start()` / `stop()`. All methods are thread-safe.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Prepare a server on `host`:`port` (port 0 picks a free port on `start()`)."""
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._queues: dict[str, deque[FakeReply]] = {}
        self._responders: dict[str, Responder] = {}
        self._api_keys: dict[str, str] = {}
        self._requests: list[dict[str, Any]] = []
        self._headers: list[dict[str, str]] = []
        self._counter = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        """Bind the port and serve in a daemon thread; returns self."""
        if self._httpd is not None:
            raise InvalidStateError("FakeOpenAIServer is already running")
        httpd = _QuietServer((self._host, self._port), _make_handler(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fake-openai-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port (safe to call twice)."""
        httpd, thread = self._httpd, self._thread
        self._httpd, self._thread = None, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (only meaningful once started)."""
        if self._httpd is None:
            return self._port
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The OpenAI base URL to give a client, e.g. `http://127.0.0.1:8123/v1`."""
        if self._httpd is None:
            raise InvalidStateError("FakeOpenAIServer is not running; call start() first")
        return f"http://{self._host}:{self.port}/v1"

    # -- scripting ---------------------------------------------------------------------------

    def script(self, model: str, replies: Iterable[FakeReply]) -> None:
        """Append `replies` to the FIFO queue of `model` ("*" answers any model)."""
        items = list(replies)
        for item in items:
            if not isinstance(item, FakeReply):
                raise InvalidArgumentTypeError(
                    f"script() takes FakeReply items, got {type(item).__name__}"
                )
        with self._lock:
            self._queues.setdefault(model, deque()).extend(items)

    def set_responder(self, model: str, responder: Responder | None) -> None:
        """Answer `model` with `responder(request_body)` once its queue is empty (None clears)."""
        with self._lock:
            if responder is None:
                self._responders.pop(model, None)
            else:
                self._responders[model] = responder

    def require_api_key(self, key: str | None, model: str = FALLBACK_MODEL) -> None:
        """Answer 401 to requests for `model` ("*": any model without its own) unless they
        carry `Authorization: Bearer <key>`, as a real provider does (None: accept any).
        The "*" key also guards the model list (`GET /models`)."""
        with self._lock:
            if key is None:
                self._api_keys.pop(model, None)
            else:
                self._api_keys[model] = key

    def remaining(self, model: str) -> int:
        """How many scripted replies are still queued for `model`."""
        with self._lock:
            return len(self._queues.get(model, ()))

    @property
    def requests(self) -> list[dict[str, Any]]:
        """A copy of every chat-completion request body received, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """The HTTP headers of each request in `requests` (names lower-cased), oldest first."""
        with self._lock:
            return [dict(headers) for headers in self._headers]

    def requests_for(self, model: str) -> list[dict[str, Any]]:
        """The request bodies received for `model`, oldest first."""
        return [body for body in self.requests if body.get("model") == model]

    def reset(self) -> None:
        """Forget queued replies, responders, required keys and recorded requests."""
        with self._lock:
            self._queues.clear()
            self._responders.clear()
            self._api_keys.clear()
            self._requests.clear()
            self._headers.clear()

    # -- serving (called from handler threads) -------------------------------------------------

    def _record_and_pick(self, body: dict[str, Any], headers: dict[str, str]) -> FakeReply:
        model = str(body.get("model", ""))
        with self._lock:
            self._requests.append(body)
            self._headers.append(headers)
            required = self._api_keys.get(model, self._api_keys.get(FALLBACK_MODEL))
            if required is not None and headers.get("authorization") != f"Bearer {required}":
                return FakeReply.error(401, "fake server: invalid API key", code="invalid_api_key")
            responder: Responder | None = None
            for name in (model, FALLBACK_MODEL):
                queue = self._queues.get(name)
                if queue:
                    return queue.popleft()
                responder = self._responders.get(name)
                if responder is not None:
                    break
        if responder is None:
            return FakeReply.error(400, f"fake server: no scripted reply left for model {model!r}")
        try:
            reply = responder(body)
        except Exception as exc:  # surface the test's bug as a server error, not a hang
            logger.exception("FakeOpenAIServer responder for %r raised", model)
            return FakeReply.error(500, f"fake server: responder for {model!r} raised {exc!r}")
        if not isinstance(reply, FakeReply):
            return FakeReply.error(
                500, f"fake server: responder for {model!r} returned {type(reply).__name__}"
            )
        return reply

    def _next_ids(self, calls: int) -> tuple[str, list[str]]:
        with self._lock:
            self._counter += 1
            number = self._counter
        return f"chatcmpl-fake-{number}", [f"call_{number}_{index}" for index in range(calls)]

    def _models(self) -> list[str]:
        with self._lock:
            names = set(self._queues) | set(self._responders)
        return sorted(names - {FALLBACK_MODEL})

    def _key_refused(self, headers: dict[str, str]) -> bool:
        """Whether a model listing must be refused: a key is required and not given."""
        with self._lock:
            required = self._api_keys.get(FALLBACK_MODEL)
        return required is not None and headers.get("authorization") != f"Bearer {required}"


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up before its answer (a timeout) is not the server's error."""

    # socketserver's default backlog is 5: twenty agents calling at once on a busy machine
    # overflowed it, and the kernel answered the extra connections with a reset.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            logger.debug("fake openai: %s went away before its answer", client_address)
            return
        super().handle_error(request, client_address)


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "FakeOpenAI/1.0"
        # One request per connection keeps shutdown simple; clients reconnect transparently.
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:
            logger.debug("fake openai: " + format, *args)

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            if path in ("/v1/models", "/models"):
                headers = {name.lower(): value for name, value in self.headers.items()}
                if server._key_refused(headers):
                    refused = FakeReply.error(
                        401, "fake server: invalid API key", code="invalid_api_key"
                    )
                    self._send_json(401, error_body(refused))
                    return
                data = [
                    {"id": name, "object": "model", "owned_by": "fake"} for name in server._models()
                ]
                self._send_json(200, {"object": "list", "data": data})
            else:
                self._send_json(404, _not_found(path))

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            if path not in ("/v1/chat/completions", "/chat/completions"):
                self._send_json(404, _not_found(path))
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not isinstance(body, dict):
                    raise ValueError("the request body must be a JSON object")
            except ValueError as exc:
                bad = FakeReply.error(400, f"fake server: invalid JSON body: {exc}")
                self._send_json(bad.status, error_body(bad))
                return
            reply = server._record_and_pick(
                body, {name.lower(): value for name, value in self.headers.items()}
            )
            if reply.delay:
                time.sleep(reply.delay)
            if reply.is_error:
                self._send_json(reply.status, error_body(reply))
                return
            model = str(body.get("model", ""))
            completion_id, call_ids = server._next_ids(len(reply.calls))
            if body.get("stream"):
                self._send_stream(stream_chunks(reply, model, completion_id, call_ids))
            else:
                self._send_json(200, completion_body(reply, model, completion_id, call_ids))

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _send_stream(self, chunks: Iterator[dict[str, Any]]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            for item in chunks:
                self.wfile.write(f"data: {json.dumps(item)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler


def _not_found(path: str) -> dict[str, Any]:
    reply = FakeReply.error(404, f"fake server: no route for {path!r}", code="not_found")
    return error_body(reply)


__all__ = ["FALLBACK_MODEL", "FakeOpenAIServer", "FakeReply", "Responder"]
