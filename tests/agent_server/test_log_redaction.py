"""Log redaction: no record of any logger shows a key, however the key was printed."""

from __future__ import annotations

import logging

import pytest
from openhands.agent_server.log_redaction import install_log_redaction, redact


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("< x-session-api-key: k-123", "k-123"),
        ("> Authorization: Bearer sk-abc def", "sk-abc"),
        ("GET /sockets/events/1?session_api_key=k-456&after=2 HTTP/1.1", "k-456"),
        ("headers=[(b'x-session-api-key', b'k-789'), (b'host', b'h')]", "k-789"),
        ("{'cookie': 'session=s-1', 'host': 'h'}", "s-1"),
    ],
)
def test_key_carrying_headers_and_queries_are_masked(text: str, hidden: str) -> None:
    assert hidden not in redact(text)
    assert "***" in redact(text)


def test_text_without_keys_is_left_alone() -> None:
    text = "GET /health HTTP/1.1 200; Authorization header missing"
    assert redact(text) == text


def test_every_logger_is_redacted_once_installed(caplog: pytest.LogCaptureFixture) -> None:
    install_log_redaction(["configured-secret-1234"])
    with caplog.at_level(logging.DEBUG):
        logging.getLogger("some.library").debug("< %s: %s", "X-Session-API-Key", "abc-999")
        logging.getLogger("another").warning("leaked %s", "configured-secret-1234")

    text = caplog.text
    assert "abc-999" not in text and "configured-secret-1234" not in text
    assert text.count("***") == 2
