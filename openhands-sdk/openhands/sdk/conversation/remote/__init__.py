"""An old import path of `openhands.sdk.remote`: every name is read from there."""

from openhands.sdk.utils.lazy import moved_module

__getattr__, __dir__ = moved_module(__name__, "openhands.sdk.remote")
