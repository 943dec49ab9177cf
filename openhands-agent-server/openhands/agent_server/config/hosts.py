"""Host names, addresses and origins as the server compares them (binding, Host, Origin).

One spelling for comparisons: lower case, no trailing dot, IPv6 without brackets, and origins
as `scheme://host:port` with the default port filled in.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "ip6-localhost"})
WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::", "[::]"})
ANY = "*"
"""In OH_ALLOWED_HOSTS / OH_ALLOWED_ORIGINS: accept every host / origin (checks off)."""

HOST_NAME = re.compile(r"^(\*\.)?[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?$")
"""A host name as OH_ALLOWED_HOSTS takes it, optionally with a leading `*.` wildcard."""


def ip_or_none(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address `host` spells (brackets allowed), or None for a name."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def format_origin(scheme: str, host: str, port: int) -> str:
    """An origin in the one spelling used for comparisons: `scheme://host:port`."""
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


def normalize_host(host: str) -> str:
    """A host name or address as compared: lower case, no trailing dot, no IPv6 brackets."""
    return host.strip().lower().rstrip(".").strip("[]")


DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def parse_origin(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an origin like `https://a.example:8443`, or None if it is not one."""
    try:
        parts = urlsplit(origin.strip().rstrip("/"))
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    if parts.path or parts.query or parts.fragment or parts.username or parts.password:
        return None
    return scheme, normalize_host(parts.hostname), port or DEFAULT_PORTS[scheme]


def is_loopback(host: str) -> bool:
    """Whether binding `host` only accepts connections from this machine."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    address = ip_or_none(host)
    return address is not None and address.is_loopback


def is_wildcard(host: str) -> bool:
    """Whether binding `host` listens on every interface (0.0.0.0, ::)."""
    return host.strip() in WILDCARD_HOSTS
