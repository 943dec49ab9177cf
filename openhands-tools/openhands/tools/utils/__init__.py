"""Small helpers the tools share, under the reference SDK's names: whether a command is
installed (ripgrep, grep), and running a function with a time limit (`timeout.py`)."""

from __future__ import annotations

import logging
import shutil
import subprocess
from collections.abc import Sequence

__all__ = [
    "_check_command_available",
    "_check_grep_available",
    "_check_ripgrep_available",
    "_log_ripgrep_fallback_warning",
]

logger = logging.getLogger(__name__)

PROBE_TIMEOUT_SECONDS = 5.0
"""How long a command may take to answer its `--version` probe."""


def _check_command_available(
    command: str, probe_args: Sequence[str] | None = ("--version",)
) -> bool:
    """Whether `command` is on PATH and, with `probe_args`, runs them with exit status 0."""
    found = shutil.which(command)
    if found is None:
        return False
    if probe_args is None:
        return True
    try:
        done = subprocess.run(
            [found, *probe_args],
            capture_output=True,
            timeout=PROBE_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _check_ripgrep_available() -> bool:
    """Whether ripgrep (`rg`) is installed and runs."""
    return _check_command_available("rg")


def _check_grep_available() -> bool:
    """Whether `grep` is on PATH."""
    return _check_command_available("grep", probe_args=None)


def _log_ripgrep_fallback_warning(tool_name: str, fallback_method: str) -> None:
    """Say once per call that `tool_name` works without ripgrep, through `fallback_method`."""
    logger.warning(
        "%s: ripgrep (rg) is not installed; using %s instead. Install ripgrep "
        "(apt-get install ripgrep) for faster searches.",
        tool_name,
        fallback_method,
    )
