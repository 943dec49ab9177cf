"""Secret values are found in output as written and in base64, hex and URL encodings."""

from __future__ import annotations

import base64
import random
import string
from urllib.parse import quote, quote_plus

import pytest
from openhands.sdk.conversation.secret_masking import SecretMasker, base64_cores
from openhands.sdk.conversation.secret_registry import MASK, SecretRegistry

SECRET = "ghp_Tok3n/with+odd=chars 42"


def _mask(text: str, *values: str) -> str:
    return SecretMasker(values or (SECRET,)).mask(text, MASK)


@pytest.mark.parametrize("before", range(6))
@pytest.mark.parametrize("after", range(4))
def test_base64_inside_a_longer_stream_is_found_at_every_alignment(before: int, after: int) -> None:
    data = b"P" * before + SECRET.encode() + b"S" * after
    stream = base64.b64encode(data).decode()
    masked = _mask(stream)
    assert MASK in masked
    assert base64.b64encode(SECRET.encode()).decode()[4:12] not in masked


@pytest.mark.parametrize("width", [64, 76, 7])
def test_base64_wrapped_at_any_width_is_found(width: int) -> None:
    stream = base64.b64encode(b"x" * 37 + SECRET.encode() + b"y" * 20).decode()
    wrapped = "\n".join(stream[i : i + width] for i in range(0, len(stream), width))
    assert MASK in _mask(wrapped)
    assert MASK in _mask(wrapped.replace("\n", "\r\n"))


def test_url_safe_base64_is_found() -> None:
    stream = base64.urlsafe_b64encode(b"ab" + SECRET.encode()).decode()
    assert MASK in _mask(stream)


def test_the_cores_are_what_only_the_value_decides() -> None:
    data = SECRET.encode()
    for shift, core in enumerate(base64_cores(data)):
        for before in (b"\x00", b"\xff"):
            for after in (b"", b"\x00", b"\xff\xff"):
                assert core in base64.b64encode(before * shift + data + after).decode()


@pytest.mark.parametrize(
    "dump",
    [
        SECRET.encode().hex(),
        SECRET.encode().hex().upper(),
        " ".join(f"{b:02x}" for b in SECRET.encode()),
        ":".join(f"{b:02X}" for b in SECRET.encode()),
        "".join(f"\\x{b:02x}" for b in SECRET.encode()),
        ", ".join(f"0x{b:02x}" for b in SECRET.encode()),
        # od -An -tx1: 16 bytes a line, each line indented
        "\n".join(
            " " + " ".join(f"{b:02x}" for b in SECRET.encode()[i : i + 16])
            for i in range(0, len(SECRET), 16)
        ),
    ],
)
def test_hex_dumps_are_found(dump: str) -> None:
    assert _mask(f"before {dump} after").split() == ["before", MASK, "after"]


@pytest.mark.parametrize(
    "encoded",
    [
        quote(SECRET),
        quote(SECRET, safe=""),
        quote_plus(SECRET),
        "".join(f"%{b:02X}" for b in SECRET.encode()),
        "".join(f"%{b:02x}" for b in SECRET.encode()),
    ],
)
def test_url_encodings_are_found(encoded: str) -> None:
    assert _mask(f"https://x.test/?t={encoded}&next=1") == f"https://x.test/?t={MASK}&next=1"


def test_a_non_ascii_value_is_found_encoded() -> None:
    value = "pässwörd-ünïcode-Ω"
    # The last character mixes the value's last bits with padding: it is left.
    assert _mask(base64.b64encode(value.encode()).decode(), value).startswith(MASK)
    assert _mask(quote(value), value) == MASK


def test_short_values_are_masked_only_as_written() -> None:
    short = "abc123"
    assert _mask(f"x {short} y", short) == f"x {MASK} y"
    encoded = base64.b64encode(short.encode()).decode()
    assert _mask(encoded, short) == encoded


def test_ordinary_output_is_left_alone() -> None:
    rng = random.Random(7)
    values = ["".join(rng.choices(string.ascii_letters + string.digits, k=32)) for _ in range(5)]
    text = "".join(rng.choices(string.printable, k=50_000))
    assert SecretMasker(values).mask(text, MASK) == text


def test_the_registry_masks_encodings_and_follows_changed_values() -> None:
    registry = SecretRegistry()
    registry.update_secrets({"TOKEN": "first-secret-value"})
    first = base64.b64encode(b"first-secret-value\n").decode()
    assert MASK in registry.mask(first)
    registry.update_secrets({"TOKEN": "second-secret-value"})
    second = bytes("second-secret-value", "utf-8").hex()
    assert registry.mask(second) == MASK
    assert registry.mask(first) == first  # no longer a value it handed out
