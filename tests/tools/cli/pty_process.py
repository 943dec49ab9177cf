"""`openhands-goal` in a pseudo-terminal, as a person at a terminal runs it: its output read as
the screen gets it (colours and redraws stripped), keys typed, Ctrl-C pressed as the
terminal's own interrupt character (the line discipline sends SIGINT)."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pyte
from openhands.sdk.testing import FakeOpenAIServer
from waits import EVENT_WAIT

COLUMNS, ROWS = 160, 40
"""The terminal's size: wide enough that no line the tests look for wraps."""

_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\r")


def screen_text(raw: bytes) -> str:
    """What the terminal received, without colour and cursor sequences (redrawn lines
    included: for waiting on a fragment, not for what stays)."""
    return _ESCAPES.sub("", raw.decode(errors="replace"))


def scrollback(raw: bytes) -> list[str]:
    """The lines a person sees at the end, the scrolled-off ones first: `raw` played on a
    terminal emulator (pyte), so a redrawn or erased status line is not among them."""
    screen = pyte.HistoryScreen(COLUMNS, ROWS, history=10_000)
    pyte.ByteStream(screen).feed(raw)
    scrolled = [
        "".join(line[column].data for column in range(COLUMNS)).rstrip()
        for line in screen.history.top
    ]
    return [*scrolled, *(line.rstrip() for line in screen.display)]


class PtyProcess:
    """`python -m openhands.tools.cli.goal ARGS` on a pseudo-terminal of its own."""

    def __init__(
        self, fake: FakeOpenAIServer, workspace: Path, *args: str, env: dict[str, str] | None = None
    ) -> None:
        """Start it in `workspace` with the fake's LLM settings (`env` adds or overrides)."""
        settings = {
            **os.environ,
            "LLM_MODEL": "openai/gpt-4o-mini",
            "LLM_BASE_URL": fake.base_url,
            "LLM_API_KEY": "fake",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "TERM": "xterm-256color",
            "COLUMNS": str(COLUMNS),
            "LINES": str(ROWS),
            **(env or {}),
        }
        for name in ("OH_SESSION_API_KEY", "UV_RUN_RECURSION_DEPTH", "NO_COLOR", "CI"):
            settings.pop(name, None)
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self._master = master
        self.process = subprocess.Popen(
            [sys.executable, "-m", "openhands.tools.cli.goal", *args],
            cwd=workspace,
            env=settings,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
        os.close(slave)
        self._raw = b""
        self._seen = 0  # how much of the text `expect` has consumed
        self._changed = threading.Condition()
        self._ended = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._master, 4096)
            except OSError:  # EIO: the last holder of the terminal's other side closed it
                chunk = b""
            with self._changed:
                if not chunk:
                    self._ended = True
                    self._changed.notify_all()
                    return
                self._raw += chunk
                self._changed.notify_all()

    @property
    def text(self) -> str:
        """Everything shown so far, colours stripped."""
        with self._changed:
            return screen_text(self._raw)

    def expect(self, fragment: str, timeout: float = EVENT_WAIT) -> str:
        """Wait until `fragment` is shown after what earlier `expect`s consumed; the text up to
        and including it. Fails when the process ends or `timeout` passes first."""
        with self._changed:
            found = self._changed.wait_for(
                lambda: fragment in screen_text(self._raw)[self._seen :] or self._ended,
                timeout=timeout,
            )
            text = screen_text(self._raw)
            where = text.find(fragment, self._seen)
            if not found or where < 0:
                raise AssertionError(f"{fragment!r} was not shown; the screen:\n{text[-4000:]}")
            consumed = text[self._seen : where + len(fragment)]
            self._seen = where + len(fragment)
            return consumed

    def lines(self) -> list[str]:
        """The terminal's lines as they stand (scrollback first; see `scrollback`)."""
        with self._changed:
            return scrollback(self._raw)

    def type(self, keys: str) -> None:
        """Type `keys` (a line needs its "\\n")."""
        os.write(self._master, keys.encode())

    def ctrl_c(self) -> None:
        """Press Ctrl-C."""
        os.write(self._master, b"\x03")

    def finish(self, timeout: float = EVENT_WAIT) -> tuple[int, str]:
        """Wait for the exit: the exit code and everything shown (see `lines` for what
        stays)."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
            raise AssertionError(f"still running after {timeout}s:\n{self.text[-4000:]}") from None
        with self._changed:
            self._changed.wait_for(lambda: self._ended, timeout=10)
        os.close(self._master)
        return code, self.text


def _take_terminal() -> None:
    # In the child, after setsid: the pseudo-terminal (its stdin) becomes its controlling
    # terminal, so Ctrl-C typed there reaches it as SIGINT.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


__all__ = ["COLUMNS", "PtyProcess", "screen_text", "scrollback"]
