"""Keys never reach the log, whichever library logs them and at whichever level.

At debug level uvicorn and websockets log request lines and handshake headers (`<
x-session-api-key: ...`, `Authorization: Bearer ...`); uvicorn's access log has the socket's
`session_api_key` query value. A filter on a few loggers misses the next library, so the
server installs a log record factory instead: every record any logger creates is checked,
and a message that holds a key is replaced by its redacted text before any handler sees it.

Redacted: the value of every header that carries a key (`X-Session-API-Key`,
`Authorization`, `Proxy-Authorization`, `X-API-Key`, `API-Key`, `Cookie`, `Set-Cookie`), in
`name: value` and `(name, value)` spellings; the `session_api_key` query parameter; and any
literal secret the server was configured with (its session keys and sealing keys).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable
from typing import Any

MASK = "***"

KEY_HEADERS = (
    "x-session-api-key",
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "cookie",
    "set-cookie",
)
"""Headers whose value is (or holds) a key: never logged."""

_NAMES = "|".join(re.escape(name) for name in KEY_HEADERS)
_HEADER_LINE = re.compile(rf"(?im)(^|[\s<>])({_NAMES})(\s*:\s*)([^\r\n]*)")
"""`name: value` up to the end of the line (a header as printed)."""
_HEADER_PAIR = re.compile(rf"""(?i)(b?['"](?:{_NAMES})['"]\s*[,:]\s*b?['"])([^'"]*)""")
"""`('name', 'value')`, `(b'name', b'value')` or `"name": "value"` (a header list or dict)."""
_QUERY_KEY = re.compile(r"(?i)(session_api_key=)[^&\s\"']*")

_lock = threading.Lock()
_secrets: tuple[str, ...] = ()
_installed: Callable[..., logging.LogRecord] | None = None


def redact(text: str) -> str:
    """`text` with every key it holds replaced by `***`."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    text = _HEADER_LINE.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}{MASK}", text)
    text = _HEADER_PAIR.sub(lambda m: f"{m.group(1)}{MASK}", text)
    return _QUERY_KEY.sub(rf"\1{MASK}", text)


def install_log_redaction(secrets: Iterable[str] = ()) -> None:
    """Redact every log record of this process from now on (also keys equal to `secrets`).

    Installed once; calling again only replaces the list of literal secrets.
    """
    global _secrets, _installed
    with _lock:
        _secrets = tuple(sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True))
        if _installed is not None:
            return
        make_record = logging.getLogRecordFactory()

        def redacting_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = make_record(*args, **kwargs)
            try:
                message = record.getMessage()
            except Exception:  # a bad format is the handler's to report, as it always was
                return record
            cleaned = redact(message)
            if cleaned != message:
                record.msg, record.args = cleaned, None
            return record

        _installed = redacting_record
        logging.setLogRecordFactory(redacting_record)
