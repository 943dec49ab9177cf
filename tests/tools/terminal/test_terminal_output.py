"""Output cleaning: escape codes and carriage returns."""

from __future__ import annotations

from openhands.tools.terminal.output import clean_output, strip_ansi


def test_strip_ansi_removes_colour_and_title_sequences() -> None:
    assert strip_ansi("\x1b[32mok\x1b[0m \x1b]0;title\x07done") == "ok done"


def test_carriage_return_overwrites_the_start_of_the_line() -> None:
    assert clean_output("progress 10%\rprogress 99%\n") == "progress 99%\n"
    assert clean_output("abcdef\rXY") == "XYcdef"


def test_crlf_becomes_lf() -> None:
    assert clean_output("a\r\nb\r\n") == "a\nb\n"
