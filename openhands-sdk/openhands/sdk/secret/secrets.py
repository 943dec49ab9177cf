"""`SecretSource` and its kinds: where a named secret's value comes from.

A source is asked for its value only when a command names the secret, so a value that
changes (a rotating token behind a URL) is fetched fresh. Values are `SecretStr` in models,
so dumps and logs show `**********`; conversations never write them to disk.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from pydantic import BaseModel, ConfigDict, Field, SecretStr

__all__ = ["LookupSecret", "SecretSource", "SecretValue", "StaticSecret"]


class SecretSource(BaseModel, ABC):
    """Where a named secret comes from; subclasses implement `get_value()`."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    description: str | None = Field(
        default=None, description="What the secret is for (may be shown to the agent)."
    )

    @abstractmethod
    def get_value(self) -> str | None:
        """The secret's value in clear, or None if it has none right now."""


class StaticSecret(SecretSource):
    """A secret whose value is given up front."""

    value: SecretStr | None = None

    def get_value(self) -> str | None:
        """The stored value."""
        return None if self.value is None else self.value.get_secret_value()


class LookupSecret(SecretSource):
    """A secret fetched with an HTTP GET each time it is needed (the body is the value)."""

    url: str = Field(description="Where to GET the value (http or https).")
    headers: dict[str, SecretStr] = Field(
        default_factory=dict, description="Request headers, e.g. an Authorization header."
    )
    timeout: float = Field(default=30.0, gt=0, le=600, description="Seconds per request.")

    def get_value(self) -> str:
        """GET `url` and return the response body; raises `httpx.HTTPError` on failure."""
        import httpx  # only when a secret is looked up: keeps `import openhands.sdk` cheap

        headers = {name: value.get_secret_value() for name, value in self.headers.items()}
        response = httpx.get(self.url, headers=headers, timeout=self.timeout)
        response.raise_for_status()
        return response.text


SecretValue = str | SecretSource
"""What `update_secrets` accepts for each name: the value itself, or a source of it."""
