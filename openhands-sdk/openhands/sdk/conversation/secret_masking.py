"""Finding secret values in command output: as written, and in their common encodings.

`SecretRegistry.mask` replaces every value it handed out with `<secret-hidden>`. A value is
found as it is, and (for values of at least `MIN_ENCODED_CHARS` characters, so that short
strings do not blank ordinary output) also:

- in base64, standard and URL-safe alphabets, also inside a longer base64 stream: the value's
  bytes can start at any of the three byte offsets of a 3-byte group, so for each offset the
  characters that only the value's bits decide are searched (those shared with the bytes
  around it are left), with line breaks allowed anywhere (`base64` wraps at 76 columns);
- in hex, lower or upper case, its bytes joined directly or by spaces, colons or line breaks
  (`xxd -p`, `od -tx1`, `hexdump`), with optional `\\x` or `0x` before each byte;
- URL-encoded: each character as it is or `%XX` (either case, its UTF-8 bytes), a space also
  as `+`.

This is a guard against accidents (a command that prints a token, a debug dump): an agent
that wants a value out can always transform it in a way no list of encodings foresees
(reverse it, split it, encrypt it). Keeping secrets from the agent is the sandbox's job.
"""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Iterable

__all__ = ["MIN_ENCODED_CHARS", "SecretMasker", "base64_cores"]

MIN_ENCODED_CHARS = 8
"""Shorter values are masked only as written: their encodings are too short to be told from
ordinary output."""

COMPILED_VALUES = 256
"""Values whose compiled patterns this process keeps (a few ms each to build)."""

_WRAP = r"(?:\r?\n)?"
_HEX_GAP = r"(?:[ \t:]|\r?\n[ \t]*)?"
_LIST_GAP = r"(?:,\s*|\s+)?"
_URLSAFE = str.maketrans("+/", "-_")
_URL_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _wrapped(text: str) -> str:
    """`text` as a pattern that allows a line break between any two of its characters."""
    return _WRAP.join(re.escape(char) for char in text)


def base64_cores(data: bytes) -> list[str]:
    """The base64 text that `data` alone decides, for each of its three possible offsets in
    a longer stream (standard alphabet)."""
    cores: list[str] = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data).decode("ascii")
        start = -(-8 * shift // 6)  # the first character with no bit of the bytes before
        end = 8 * (shift + len(data)) // 6  # past the last one with no bit of those after
        if end > start:
            cores.append(encoded[start:end])
    return cores


def _hex_forms(data: bytes) -> list[str]:
    """Hex dumps of `data`: bare pairs (`xxd -p`, `od`), `\\x..` escapes, `0x..` lists."""
    forms: list[str] = []
    for digits in ("{:02x}", "{:02X}"):
        pairs = [digits.format(byte) for byte in data]
        forms.append(_HEX_GAP.join(pairs))
        forms.append(_HEX_GAP.join(re.escape("\\x") + pair for pair in pairs))
        forms.append(_LIST_GAP.join("0x" + pair for pair in pairs))
    return forms


def _url_forms(value: str) -> list[str]:
    """`value` URL-encoded: each character that encoding may change as it is or `%XX` (either
    case), a space also as `+`; fully encoded (`%73%6B...`) as well."""
    parts: list[str] = []
    for char in value:
        if char in _URL_UNRESERVED:
            parts.append(re.escape(char))
            continue
        percent = "".join(f"%{byte:02x}" for byte in char.encode("utf-8"))
        options = [re.escape(char), f"(?i:{re.escape(percent)})"]
        if char == " ":
            options.append(r"\+")
        parts.append("(?:" + "|".join(options) + ")")
    forms = ["".join(parts)] if any(char not in _URL_UNRESERVED for char in value) else []
    for digits in ("%{:02x}", "%{:02X}"):
        forms.append(re.escape("".join(digits.format(byte) for byte in value.encode("utf-8"))))
    return forms


def _forms(value: str) -> list[str]:
    """Patterns for `value` and (if long enough) its encodings."""
    forms = [re.escape(value)]
    if len(value) < MIN_ENCODED_CHARS:
        return forms
    data = value.encode("utf-8")
    for core in base64_cores(data):
        forms.append(_wrapped(core))
        urlsafe = core.translate(_URLSAFE)
        if urlsafe != core:
            forms.append(_wrapped(urlsafe))
    forms.extend(_hex_forms(data))
    forms.extend(_url_forms(value))
    return forms


@functools.lru_cache(maxsize=COMPILED_VALUES)
def _compiled(value: str) -> tuple[re.Pattern[str], ...]:
    """The patterns of one value, kept: a registry that gains a secret recompiles only its."""
    return tuple(re.compile(form) for form in _forms(value))


class SecretMasker:
    """Replaces `values` and their encodings in a text.

    Each form is its own pattern: one that starts with a literal character is searched at C
    speed, where one alternation of them all would try every form at every position.
    """

    def __init__(self, values: Iterable[str]) -> None:
        ordered = sorted({value for value in values if value}, key=len, reverse=True)
        self._patterns = [pattern for value in ordered for pattern in _compiled(value)]

    def mask(self, text: str, replacement: str) -> str:
        """`text` with every value found (in any form) replaced by `replacement`."""
        for pattern in self._patterns:
            if pattern.search(text) is not None:
                text = pattern.sub(replacement, text)
        return text
