"""Logging helpers the reference SDK's scripts import: `get_logger` and `setup_logging`.

They live in `openhands.sdk.logger.logger` (importing the SDK configures nothing and loads
nothing more than `logging`); this package hands them on with the environment as it was read
at import.
"""

from __future__ import annotations

import logging
import os

from openhands.sdk.logger.logger import JsonFormatter, get_logger, setup_logging


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
