"""Secrets a conversation hands to its agent's commands: sources and their values."""

from openhands.sdk.secret.secrets import (
    LookupSecret,
    SecretSource,
    SecretSpec,
    SecretValue,
    StaticSecret,
)

__all__ = ["LookupSecret", "SecretSource", "SecretSpec", "SecretValue", "StaticSecret"]
