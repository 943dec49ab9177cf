"""The security headers every HTTP answer carries.

The web page and /docs load only files this server serves: scripts are external files (no
inline script, no eval), so the Content-Security-Policy allows `'self'` and nothing else;
`data:` images cover the page's empty favicon and Swagger UI's icons. Nothing may frame
the server (clickjacking a "Start goal" button), browsers must not guess content types, and
no URL (they may carry conversation ids) leaks to other sites in a Referer header.
"""

from __future__ import annotations

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",  # CSP 3: 'self' also allows ws:// and wss:// to this host
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
"""Raw ASGI header pairs, added to every `http.response.start`."""
