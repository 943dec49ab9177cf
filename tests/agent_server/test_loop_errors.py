"""ThrottledLoopErrors: a repeated event-loop error is logged once per interval, with a count."""

from __future__ import annotations

import asyncio
import logging

import pytest
from openhands.agent_server.loop_errors import ThrottledLoopErrors


def _accept_failure() -> dict[str, object]:
    return {
        "message": "socket.accept() out of system resource",
        "exception": OSError(24, "Too many open files"),
    }


def test_a_repeated_error_is_logged_once_per_interval_with_a_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    handler = ThrottledLoopErrors(60.0, clock=lambda: now[0])
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.ERROR):
            for second in range(0, 130):  # one failed accept per second for two minutes
                now[0] = float(second)
                handler(loop, _accept_failure())
    finally:
        loop.close()

    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3  # the first report, then one summary per minute
    assert "Too many open files" in (caplog.records[0].exc_text or str(caplog.records[0].exc_info))
    assert "59 more times" in lines[1] and "59 more times" in lines[2]


def test_different_errors_are_each_logged(caplog: pytest.LogCaptureFixture) -> None:
    handler = ThrottledLoopErrors(60.0, clock=lambda: 0.0)
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.ERROR):
            handler(loop, _accept_failure())
            handler(loop, {"message": "Task exception was never retrieved"})
    finally:
        loop.close()

    assert len(caplog.records) == 2
