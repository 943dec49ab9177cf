"""Logging helpers the reference SDK's scripts import: `get_logger` and `setup_logging`.

`setup_logging` and `JsonFormatter` live in `openhands.sdk.logger.logger`, loaded on first use
(importing the SDK configures and loads nothing more than `logging`).
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.logger.logger import JsonFormatter, setup_logging


def _flag(name: str, default: str = "false") -> bool:
    return os.environ.get(name, default).strip().lower() in {"1", "true", "yes"}


# The environment as it was when the SDK was imported (the reference SDK's names);
# `setup_logging` reads the variables again when it runs.
DEBUG = _flag("DEBUG")
"""DEBUG=1: log at DEBUG level."""
ENV_LOG_LEVEL = (
    logging.DEBUG
    if DEBUG
    else logging.getLevelNamesMapping().get(
        os.environ.get("LOG_LEVEL", "INFO").strip().upper(), logging.INFO
    )
)
"""The level LOG_LEVEL names (INFO if unset or unknown)."""
ENV_JSON = _flag("LOG_JSON")
"""LOG_JSON=true: log one JSON object per line."""
ENV_LOG_DIR = os.environ.get("LOG_DIR", "logs")
"""Where log files go (LOG_DIR, default `logs`)."""
IN_CI = _flag("CI") or bool(os.environ.get("GITHUB_ACTIONS"))
"""Running in continuous integration."""


def get_logger(name: str) -> logging.Logger:
    """The standard-library logger called `name` (configure output with `setup_logging`)."""
    return logging.getLogger(name)


__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "setup_logging": "openhands.sdk.logger.logger",
        "JsonFormatter": "openhands.sdk.logger.logger",
    },
)


__all__ = [
    "DEBUG",
    "ENV_JSON",
    "ENV_LOG_DIR",
    "ENV_LOG_LEVEL",
    "IN_CI",
    "JsonFormatter",
    "get_logger",
    "setup_logging",
]
