"""Errors of fetching and installing skills and plugins."""

from __future__ import annotations

from openhands.sdk.errors import OpenHandsError

__all__ = ["ExtensionError", "ExtensionFetchError", "ExtensionInstallError"]


class ExtensionError(OpenHandsError):
    """Fetching, installing or loading a skill or a plugin failed."""


class ExtensionFetchError(ExtensionError):
    """A source could not be fetched: a missing folder, an unknown source format, or git
    failing (the message has git's own reason: check the URL, the ref and your access)."""


class ExtensionInstallError(ExtensionError, ValueError):
    """An install was refused: the folder is not a skill or plugin, its name cannot be a
    folder name, or it is installed already (pass `force=True` to replace it)."""
