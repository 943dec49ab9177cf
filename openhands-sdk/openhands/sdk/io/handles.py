"""A bounded, process-wide cache of file descriptors open for appending (one per log file).

A server may hold thousands of conversations; keeping each one's `events.jsonl` open would
exhaust the process's descriptors (`ulimit -n`, often 1024). Logs instead borrow a
descriptor from `append_handles()` for each append: the most recently used stay open, the
least recently used are closed once more than `max_open` are open, and a descriptor in use is
never closed under its user.

The limit is `OH_MAX_OPEN_LOG_FILES` (read on first use) or `set_max_open_files(n)`; by
default 128, or a quarter of the process's descriptor limit if that is lower. 0 means
unlimited.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path

from openhands.sdk.errors import InvalidSettingError
from openhands.sdk.io.private import PRIVATE_FILE_MODE

__all__ = [
    "DEFAULT_MAX_OPEN_FILES",
    "MAX_OPEN_FILES_ENV",
    "AppendHandles",
    "append_handles",
    "set_max_open_files",
]

MAX_OPEN_FILES_ENV = "OH_MAX_OPEN_LOG_FILES"
DEFAULT_MAX_OPEN_FILES = 128

_OPEN_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
_OUT_OF_DESCRIPTORS = frozenset({errno.EMFILE, errno.ENFILE})


class _Handle:
    __slots__ = ("closing", "fd", "users")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.users = 0
        self.closing = False  # discarded while in use: the last user closes it


class AppendHandles:
    """Descriptors opened for appending, at most `max_open` at once (LRU; 0 = unlimited)."""

    def __init__(self, max_open: int | None = None) -> None:
        self._lock = threading.Lock()
        self._open: OrderedDict[str, _Handle] = OrderedDict()
        self._max_open = _default_max_open() if max_open is None else _checked(max_open)

    @property
    def max_open(self) -> int:
        """How many descriptors may stay open when unused (0 = unlimited)."""
        return self._max_open

    @max_open.setter
    def max_open(self, value: int) -> None:
        with self._lock:
            self._max_open = _checked(value)
            self._evict()

    def __len__(self) -> int:
        """How many descriptors are open now."""
        with self._lock:
            return len(self._open)

    @contextlib.contextmanager
    def use(self, path: str | Path) -> Iterator[int]:
        """A descriptor of `path` open for appending (created if missing) while in the block.

        Raises OSError if the file cannot be opened.
        """
        key = os.fspath(path)
        with self._lock:
            handle = self._open.get(key)
            if handle is None:
                handle = _Handle(self._open_fd(key))
                self._open[key] = handle
            else:
                self._open.move_to_end(key)
            handle.users += 1
            self._evict()
        try:
            yield handle.fd
        finally:
            with self._lock:
                handle.users -= 1
                if handle.closing and handle.users == 0:
                    os.close(handle.fd)
                self._evict()

    def discard(self, path: str | Path) -> None:
        """Close the descriptor of `path` (once its current users are done)."""
        with self._lock:
            handle = self._open.pop(os.fspath(path), None)
            if handle is None:
                return
            if handle.users:
                handle.closing = True
            else:
                os.close(handle.fd)

    # -- internals (called with the lock held) ------------------------------------------------

    def _open_fd(self, key: str) -> int:
        try:
            return os.open(key, _OPEN_FLAGS, PRIVATE_FILE_MODE)
        except OSError as exc:
            if exc.errno not in _OUT_OF_DESCRIPTORS or not self._close_idle(len(self._open)):
                raise
        # The process ran out of descriptors: the idle ones we hold were closed; try again.
        return os.open(key, _OPEN_FLAGS, PRIVATE_FILE_MODE)

    def _evict(self) -> None:
        if self._max_open:
            self._close_idle(len(self._open) - self._max_open)

    def _close_idle(self, count: int) -> int:
        """Close up to `count` unused descriptors, least recently used first."""
        closed = 0
        for key in list(self._open):
            if closed >= count:
                break
            handle = self._open[key]
            if handle.users == 0:
                del self._open[key]
                os.close(handle.fd)
                closed += 1
        return closed


def _checked(value: int) -> int:
    if value < 0:
        raise InvalidSettingError(
            f"the open log file limit must be >= 0 (0 = unlimited), got {value}"
        )
    return value


def _default_max_open() -> int:
    raw = os.environ.get(MAX_OPEN_FILES_ENV, "").strip()
    if raw:
        try:
            return _checked(int(raw))
        except ValueError:
            raise InvalidSettingError(
                f"{MAX_OPEN_FILES_ENV}={raw!r} is not a whole number >= 0; set it to how many "
                "log files may stay open (0 = unlimited) or unset it for the default."
            ) from None
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return DEFAULT_MAX_OPEN_FILES
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return DEFAULT_MAX_OPEN_FILES
    return max(1, min(DEFAULT_MAX_OPEN_FILES, soft // 4))


_shared: AppendHandles | None = None
_shared_lock = threading.Lock()


def append_handles() -> AppendHandles:
    """The process-wide cache every event log appends through."""
    global _shared
    if _shared is None:
        with _shared_lock:
            if _shared is None:
                _shared = AppendHandles()
    return _shared


def set_max_open_files(value: int) -> None:
    """Set how many log files the process keeps open for appending (0 = unlimited)."""
    append_handles().max_open = value
