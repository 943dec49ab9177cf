"""`RequestTrust`: which Host names and Origins this server answers.

DNS rebinding: a web page on `attacker.example` can make its name resolve to 127.0.0.1, so
the browser sends that page's requests to this server, as same-origin requests. They still
carry `Host: attacker.example:PORT`, so a server that only answers its own names is safe.
An IP address in Host cannot be rebound (no DNS is involved), so addresses are accepted when
the server listens on every interface.

CSRF: any page may POST to 127.0.0.1 or open a WebSocket to it (browsers send no preflight
for a WebSocket). Browsers name the page in `Origin`, so a state-changing request or a socket
whose Origin is neither this server nor a configured origin is refused. Clients that are not
browsers send no Origin; they are not a CSRF vector and are accepted.
"""

from __future__ import annotations

import ipaddress

from openhands.agent_server.config import (
    ANY,
    DEFAULT_PORTS,
    LOOPBACK_NAMES,
    ServerConfig,
    format_origin,
    is_wildcard,
    normalize_host,
    parse_origin,
)

_CACHE_SIZE = 256
"""Decisions remembered per distinct header value (clients send the same few values)."""


class RequestTrust:
    """Decides whether a Host header names this server and whether an Origin may act on it."""

    def __init__(self, config: ServerConfig) -> None:
        allowed = config.allowed_hosts
        self.any_host = ANY in allowed
        self.any_origin = ANY in config.allowed_origins
        self.any_address = is_wildcard(config.host)
        bound = normalize_host(config.host)
        self._names = frozenset(
            {*LOOPBACK_NAMES, *(h for h in allowed if not h.startswith("*.")), bound} - {""}
        )
        self._suffixes = tuple(h[1:] for h in allowed if h.startswith("*."))
        self._origins = frozenset(config.allowed_origins)
        self._hosts: dict[bytes, bool] = {}
        self._origin_checks: dict[tuple[bytes, bytes | None, str], bool] = {}

    def host_allowed(self, host: bytes | None) -> bool:
        """Whether a Host header value names this server (a missing header is accepted)."""
        if host is None or self.any_host:
            return True
        known = self._hosts.get(host)
        if known is None:
            known = self._check_host(host.decode("latin-1"))
            if len(self._hosts) < _CACHE_SIZE:
                self._hosts[host] = known
        return known

    def origin_allowed(self, origin: bytes, host: bytes | None, scheme: str) -> bool:
        """Whether a page at `origin` may change state on this server, reached via `host`."""
        if self.any_origin:
            return True
        key = (origin, host, scheme)
        known = self._origin_checks.get(key)
        if known is None:
            known = self._check_origin(origin.decode("latin-1"), host, scheme)
            if len(self._origin_checks) < _CACHE_SIZE:
                self._origin_checks[key] = known
        return known

    def _check_host(self, value: str) -> bool:
        split = split_host(value)
        if split is None:
            return False
        name = split[0]
        if name in self._names or (self._suffixes and name.endswith(self._suffixes)):
            return True
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return False
        return address.is_loopback or self.any_address

    def _check_origin(self, value: str, host: bytes | None, scheme: str) -> bool:
        parsed = parse_origin(value)  # None for "null" (sandboxed frames, files)
        if parsed is None:
            return False
        if format_origin(*parsed) in self._origins:
            return True
        _, origin_host, origin_port = parsed
        if host is None:
            return False
        split = split_host(host.decode("latin-1"))
        if split is None:
            return False
        name, port = split
        return (name, port or DEFAULT_PORTS.get(scheme, 80)) == (origin_host, origin_port)


def split_host(value: str) -> tuple[str, int | None] | None:
    """(name, port) of a Host header value (`[::1]:8000` -> ('::1', 8000)); None if malformed."""
    value = value.strip().lower()
    port_text = ""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1 :]
        if rest:
            if not rest.startswith(":"):
                return None
            port_text = rest[1:]
    elif value.count(":") == 1:
        name, port_text = value.split(":")
    elif ":" in value:
        return None  # an IPv6 address must be bracketed in Host
    else:
        name = value
    name = name.rstrip(".")
    if not name or (port_text and not port_text.isdigit()):
        return None
    return name, int(port_text) if port_text else None
