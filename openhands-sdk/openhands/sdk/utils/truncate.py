"""`truncate_middle`: shorten a long text for an LLM, keeping its start and its end."""

from __future__ import annotations

HEAD_SHARE = 0.4
"""Share of the kept characters taken from the start; the rest comes from the end, where
errors, summaries and exit messages usually are."""


def truncate_middle(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters (marker included), keeping its head and tail.

    The marker says how many characters (and lines) were cut. `limit <= 0` means no limit.
    A `limit` shorter than the marker itself gives just the marker.
    """
    if limit <= 0 or len(text) <= limit:
        return text
    # The marker is never longer than one reporting len(text) for both counts.
    keep = max(limit - len(_marker(len(text), len(text))), 0)
    head = int(keep * HEAD_SHARE)
    tail = keep - head
    removed = text[head : len(text) - tail]
    return text[:head] + _marker(len(removed), removed.count("\n")) + text[len(text) - tail :]


def _marker(characters: int, lines: int) -> str:
    return f"\n[... {characters} characters truncated ({lines} lines) ...]\n"
