"""httpx for the native transport: loaded without its command line, TLS built when needed
and always verified."""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk.llm import LLM, LLMTransientError, text_message
from openhands.sdk.llm.openai_compat import httpx_loader
from pydantic import SecretStr


def test_httpx_comes_without_its_command_line_and_http2_modules() -> None:
    code = (
        "import json, sys\n"
        "from openhands.sdk.llm.openai_compat.httpx_loader import http_client, import_httpx\n"
        "httpx = import_httpx(); http_client()\n"
        "loaded = [m for m in ('rich', 'click', 'pygments', 'h2') if m in sys.modules]\n"
        "try:\n"
        "    httpx.main()\n"
        "    said = ''\n"
        "except RuntimeError as exc:  # InvalidStateError is one\n"
        "    said = str(exc)\n"
        "import httpx._main as real, h2.connection\n"
        "print(json.dumps({'loaded': loaded, 'said': said, 'real': real.__file__ is not None}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])

    assert report["loaded"] == []
    assert "run `httpx` on its own" in report["said"]
    assert report["real"] is True


class _Hello(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps(
            {
                "id": "x",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "tls ok"}}],
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An OpenAI-compatible server on https://127.0.0.1 with a self-signed certificate."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    httpx_loader._forget_client()  # a client whose TLS transport is built in this test
    yield f"https://127.0.0.1:{httpd.server_address[1]}/v1", cert
    httpd.shutdown()
    httpd.server_close()
    httpx_loader._forget_client()


def _ask(base_url: str) -> str:
    llm = LLM(model="openai/x", base_url=base_url, api_key=SecretStr("k"), num_retries=0)
    return llm.completion([text_message("user", "hi")]).message.text


def test_an_untrusted_certificate_is_refused(tls_server: tuple[str, Path]) -> None:
    url, _ = tls_server

    with pytest.raises(LLMTransientError, match=r"CERTIFICATE_VERIFY_FAILED|certificate verify"):
        _ask(url)


def test_a_certificate_the_environment_trusts_is_accepted(
    tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, cert = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))

    assert _ask(url) == "tls ok"
