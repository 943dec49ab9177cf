"""`get_logger` and `setup_logging`: standard-library logging, configured on request.

Importing the SDK configures nothing; a program (or an example script) calls
`setup_logging()` once. Settings come from the arguments, else from the environment, read
when `setup_logging` runs:

| variable | meaning | default |
|---|---|---|
| `LOG_LEVEL` | level name (`DEBUG`, `INFO`...); `DEBUG=1` forces DEBUG | `INFO` |
| `LOG_JSON` | one JSON object per line instead of text | false |
| `LOG_TO_FILE` | also write `<LOG_DIR>/app.log`, rotated | false |
| `LOG_DIR` | folder of the log file (created) | `logs` |
| `LOG_ROTATE_WHEN`, `LOG_BACKUP_COUNT` | rotation (see `TimedRotatingFileHandler`) | `midnight`, 7 |
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

__all__ = ["JsonFormatter", "get_logger", "setup_logging"]

VAR_LOG_LEVEL = "LOG_LEVEL"
VAR_JSON = "LOG_JSON"
VAR_LOG_DIR = "LOG_DIR"
VAR_LOG_TO_FILE = "LOG_TO_FILE"
VAR_ROTATE_WHEN = "LOG_ROTATE_WHEN"
VAR_BACKUP_COUNT = "LOG_BACKUP_COUNT"

TEXT_FORMAT = "%(asctime)s - %(levelname)s - %(name)s - %(filename)s:%(lineno)d - %(message)s"
CHATTY_LOGGERS = {"litellm": logging.WARNING, "LiteLLM": logging.WARNING, "httpx": logging.WARNING}
"""Third-party loggers kept quiet below these levels (they log every request)."""


def get_logger(name: str) -> logging.Logger:
    """The standard-library logger called `name` (configure output with `setup_logging`)."""
    return logging.getLogger(name)


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes"}


def _env_level() -> int:
    if _flag("DEBUG"):
        return logging.DEBUG
    name = os.environ.get(VAR_LOG_LEVEL, "INFO").strip().upper()
    level = logging.getLevelNamesMapping().get(name)
    return level if level is not None else logging.INFO


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, file, line, message (and exception)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "asctime": self.formatTime(record),
            "levelname": record.levelname,
            "name": record.name,
            "filename": record.filename,
            "lineno": record.lineno,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def setup_logging(
    level: int | None = None,
    log_to_file: bool | None = None,
    log_dir: str | None = None,
    fmt: str | None = None,
    when: str | None = None,
    backup_count: int | None = None,
) -> None:
    """Configure the root logger (every module's logger inherits it).

    Adds a console handler unless the root logger already has a stream handler (a server
    may have installed its own), and, with `log_to_file`, a rotating `app.log` in `log_dir`
    (once per file, however often this is called).
    """
    lvl = _env_level() if level is None else level
    to_file = _flag(VAR_LOG_TO_FILE) if log_to_file is None else log_to_file
    folder = os.environ.get(VAR_LOG_DIR, "logs") if log_dir is None else log_dir
    rotate = os.environ.get(VAR_ROTATE_WHEN, "midnight") if when is None else when
    keep = int(os.environ.get(VAR_BACKUP_COUNT, "7")) if backup_count is None else backup_count
    as_json = _flag(VAR_JSON)
    formatter: logging.Formatter = (
        JsonFormatter() if as_json else logging.Formatter(fmt or TEXT_FORMAT)
    )

    root = logging.getLogger()
    root.setLevel(lvl)
    for name, quiet in CHATTY_LOGGERS.items():
        logging.getLogger(name).setLevel(max(quiet, lvl))
    if not any(type(h) is logging.StreamHandler for h in root.handlers):
        console = logging.StreamHandler()
        console.setLevel(lvl)
        console.setFormatter(formatter)
        root.addHandler(console)
    if to_file:
        from logging.handlers import TimedRotatingFileHandler  # it imports socket, pickle...

        os.makedirs(folder, exist_ok=True)
        path = os.path.abspath(os.path.join(folder, "app.log"))
        if not any(getattr(h, "baseFilename", None) == path for h in root.handlers):
            handler = TimedRotatingFileHandler(
                path, when=rotate, backupCount=keep, encoding="utf-8"
            )
            handler.setLevel(lvl)
            handler.setFormatter(formatter)
            root.addHandler(handler)
