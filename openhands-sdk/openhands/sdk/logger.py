"""`get_logger`: the logger helper that reference-SDK scripts import from `openhands.sdk`."""

from __future__ import annotations

import logging

__all__ = ["get_logger"]


def get_logger(name: str) -> logging.Logger:
    """The standard-library logger called `name`; configure output with `logging` as usual."""
    return logging.getLogger(name)
