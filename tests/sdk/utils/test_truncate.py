"""`truncate_middle`: the one way long text is shortened for an LLM."""

from __future__ import annotations

import pytest
from openhands.sdk.utils.truncate import truncate_middle

TEXT = "".join(f"line {n}\n" for n in range(1000))


def test_short_text_is_returned_unchanged() -> None:
    assert truncate_middle("short", 100) == "short"


def test_zero_limit_means_no_limit() -> None:
    assert truncate_middle(TEXT, 0) == TEXT


def test_truncation_keeps_head_and_tail_and_says_how_much_was_cut() -> None:
    out = truncate_middle(TEXT, 200)

    assert out.startswith("line 0\n")
    assert out.endswith("line 999\n")
    assert "characters truncated" in out


@pytest.mark.parametrize("limit", [60, 200, 1_000, 5_000])
def test_the_result_never_exceeds_the_limit(limit: int) -> None:
    assert len(truncate_middle(TEXT, limit)) <= limit


def test_the_marker_counts_exactly_the_characters_and_lines_removed() -> None:
    text = "a" * 100 + "\n" * 7 + "b" * 100 + "z" * 300
    out = truncate_middle(text, 150)
    head, rest = out.split("\n[... ", 1)
    count, rest = rest.split(" characters truncated (", 1)
    lines, tail = rest.split(" lines) ...]\n", 1)

    assert text.startswith(head) and text.endswith(tail)
    assert int(count) == len(text) - len(head) - len(tail)
    assert int(lines) == text[len(head) : len(text) - len(tail)].count("\n")


def test_more_of_the_end_is_kept_than_of_the_start() -> None:
    out = truncate_middle("h" * 1000 + "t" * 1000, 300)

    assert out.count("t") > out.count("h")
