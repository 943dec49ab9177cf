"""Fixtures for hook tests: HookConfig builders."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from openhands.sdk import HookConfig


def _hooks(event: str, command: str, *, matcher: str = "*", timeout: float = 10) -> HookConfig:
    return HookConfig.model_validate(
        {
            event: [
                {
                    "matcher": matcher,
                    "hooks": [{"type": "command", "command": command, "timeout": timeout}],
                }
            ]
        }
    )


@pytest.fixture
def hook_config() -> Callable[..., HookConfig]:
    """`hook_config("Stop", "exit 2", matcher="*", timeout=10)`: one command hook."""
    return _hooks
