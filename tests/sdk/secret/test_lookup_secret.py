"""`LookupSecret`: a value fetched over HTTP each time it is needed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from openhands.sdk.secret import LookupSecret


class _Vault(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.headers.get("Authorization") != "Bearer let-me-in":
            self.send_response(401)
            self.end_headers()
            return
        body = b"rotated-token"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        del format, args


@pytest.fixture
def vault() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Vault)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/secret"
    server.shutdown()
    server.server_close()


def test_the_value_is_the_response_body(vault: str) -> None:
    secret = LookupSecret(url=vault, headers={"Authorization": "Bearer let-me-in"})  # type: ignore[dict-item]

    assert secret.get_value() == "rotated-token"


def test_a_refused_lookup_raises_and_headers_never_show_in_a_dump(vault: str) -> None:
    secret = LookupSecret(url=vault, headers={"Authorization": "Bearer wrong"})  # type: ignore[dict-item]

    with pytest.raises(httpx.HTTPStatusError):
        secret.get_value()
    assert "wrong" not in secret.model_dump_json()
