"""Output cleaning: escape codes, carriage returns and middle truncation."""

from __future__ import annotations

from openhands.tools.terminal.output import clean_output, strip_ansi, truncate_middle


def test_strip_ansi_removes_colour_and_title_sequences() -> None:
    assert strip_ansi("\x1b[32mok\x1b[0m \x1b]0;title\x07done") == "ok done"


def test_carriage_return_overwrites_the_start_of_the_line() -> None:
    assert clean_output("progress 10%\rprogress 99%\n") == "progress 99%\n"
    assert clean_output("abcdef\rXY") == "XYcdef"


def test_crlf_becomes_lf() -> None:
    assert clean_output("a\r\nb\r\n") == "a\nb\n"


def test_short_text_is_not_truncated() -> None:
    assert truncate_middle("short", 100) == "short"


def test_truncation_keeps_head_and_tail_and_says_how_much_was_cut() -> None:
    text = "".join(f"line {n}\n" for n in range(1000))
    out = truncate_middle(text, 200)
    assert out.startswith("line 0\n")
    assert out.endswith("line 999\n")
    assert "characters" in out and "omitted" in out
