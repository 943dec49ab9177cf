"""Callback types of streamed completions (no litellm import: the chunk type is `Any` here)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

TokenCallbackType = Callable[[Any], None]
"""Receives each streamed chunk (an `LLMStreamChunk`, i.e. litellm's `ModelResponseStream`)."""

AsyncTokenCallbackType = Callable[[Any], Coroutine[Any, Any, None]]
"""An async callback that receives each streamed chunk."""
