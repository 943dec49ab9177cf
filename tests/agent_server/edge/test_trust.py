"""RequestTrust: which Host names and Origins the server answers (no server needed)."""

from __future__ import annotations

import pytest
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.edge.trust import RequestTrust, split_host


def trust(**env: str) -> RequestTrust:
    return RequestTrust(ServerConfig.from_env(env))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("127.0.0.1:8000", ("127.0.0.1", 8000)),
        ("LocalHost.", ("localhost", None)),
        ("[::1]:8000", ("::1", 8000)),
        ("[::1]", ("::1", None)),
        ("::1", None),  # IPv6 without brackets is not a Host value
        ("a.example:port", None),
        ("[::1", None),
        ("", None),
    ],
)
def test_split_host(value: str, expected: tuple[str, int | None] | None) -> None:
    assert split_host(value) == expected


@pytest.mark.parametrize(
    "host", [b"localhost:8000", b"127.0.0.1:8000", b"[::1]:8000", b"127.9.9.9", None]
)
def test_loopback_hosts_and_a_missing_host_are_accepted_by_default(host: bytes | None) -> None:
    assert trust().host_allowed(host)


@pytest.mark.parametrize(
    "host", [b"attacker.example:8000", b"10.0.0.5:8000", b"localhost.attacker.example", b"::1"]
)
def test_other_names_and_addresses_are_refused_by_default(host: bytes) -> None:
    assert not trust().host_allowed(host)


def test_a_wildcard_bind_accepts_any_address_but_not_names() -> None:
    policy = trust(OH_HOST="0.0.0.0")
    assert policy.host_allowed(b"192.168.1.20:8000")
    assert not policy.host_allowed(b"attacker.example:8000")


def test_the_bound_name_is_accepted() -> None:
    assert trust(OH_HOST="box.lan").host_allowed(b"box.lan:8000")


def test_subdomain_patterns_match_subdomains_only() -> None:
    policy = trust(OH_ALLOWED_HOSTS="*.corp.example")
    assert policy.host_allowed(b"ci.corp.example")
    assert not policy.host_allowed(b"corp.example")
    assert not policy.host_allowed(b"evilcorp.example")


def test_a_star_turns_the_host_check_off() -> None:
    assert trust(OH_ALLOWED_HOSTS="*").host_allowed(b"anything.example")


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "allowed"),
    [
        (b"http://127.0.0.1:8000", b"127.0.0.1:8000", "http", True),
        (b"http://localhost:8000", b"localhost:8000", "http", True),
        (b"http://localhost:8000", b"127.0.0.1:8000", "http", False),  # another origin
        (b"http://127.0.0.1:3000", b"127.0.0.1:8000", "http", False),
        (b"http://box.lan", b"box.lan", "http", True),  # default ports on both sides
        (b"https://box.lan", b"box.lan", "https", True),
        (b"https://box.lan", b"box.lan", "http", False),  # 443 vs 80
        (b"http://127.0.0.1:8000", b"127.0.0.1:8000", "ws", True),
        (b"null", b"127.0.0.1:8000", "http", False),
        (b"http://127.0.0.1:8000", None, "http", False),
    ],
)
def test_same_origin(origin: bytes, host: bytes | None, scheme: str, allowed: bool) -> None:
    assert trust().origin_allowed(origin, host, scheme) is allowed


def test_configured_origins_are_accepted() -> None:
    policy = trust(OH_ALLOWED_ORIGINS="https://app.example")
    assert policy.origin_allowed(b"https://app.example", b"127.0.0.1:8000", "http")
    assert policy.origin_allowed(b"https://app.example:443", b"127.0.0.1:8000", "http")
    assert not policy.origin_allowed(b"http://app.example", b"127.0.0.1:8000", "http")


def test_a_star_turns_the_origin_check_off() -> None:
    policy = trust(OH_ALLOWED_ORIGINS="*")
    assert policy.origin_allowed(b"http://evil.example", b"127.0.0.1:8000", "http")
