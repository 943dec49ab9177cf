"""`SecretSource` and its kinds: where a named secret's value comes from.

A source is asked for its value only when a command names the secret, so a value that
changes (a rotating token behind a URL) is fetched fresh. Values are `SecretStr` in models,
so dumps and logs show `**********`; conversations never write them to disk.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    SerializationInfo,
    field_serializer,
)

__all__ = [
    "LookupSecret",
    "SecretSource",
    "SecretSpec",
    "SecretValue",
    "StaticSecret",
    "dump_with_secrets",
]


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

    kind: Literal["StaticSecret"] = "StaticSecret"
    value: SecretStr | None = None

    def get_value(self) -> str | None:
        """The stored value."""
        return None if self.value is None else self.value.get_secret_value()

    @field_serializer("value")
    def _dump_value(
        self, value: SecretStr | None, info: SerializationInfo
    ) -> str | SecretStr | None:
        # JSON shows no value unless asked for it (e.g. to seal it, or send it to a server);
        # a Python dump keeps the SecretStr, or gives the text when asked too.
        if value is not None and _exposed(info):
            return value.get_secret_value()
        return value if info.mode == "python" else None


class LookupSecret(SecretSource):
    """A secret fetched with an HTTP GET each time it is needed (the body is the value)."""

    kind: Literal["LookupSecret"] = "LookupSecret"
    url: str = Field(description="Where to GET the value (http or https).")
    headers: dict[str, SecretStr] = Field(
        default_factory=dict, description="Request headers, e.g. an Authorization header."
    )
    timeout: float = Field(default=30.0, gt=0, le=600, description="Seconds per request.")

    @field_serializer("headers", when_used="json")
    def _dump_headers(self, headers: dict[str, SecretStr], info: SerializationInfo) -> Any:
        # Header names stay visible; their values (an Authorization token) only when asked.
        if _exposed(info):
            return {name: value.get_secret_value() for name, value in headers.items()}
        return dict.fromkeys(headers)

    def get_value(self) -> str:
        """GET `url` and return the response body; raises `httpx.HTTPError` on failure."""
        import httpx  # only when a secret is looked up: keeps `import openhands.sdk` cheap

        headers = {name: value.get_secret_value() for name, value in self.headers.items()}
        response = httpx.get(self.url, headers=headers, timeout=self.timeout)
        response.raise_for_status()
        return response.text


SecretValue = str | SecretSource
"""What `update_secrets` accepts for each name: the value itself, or a source of it."""


def _exposed(info: SerializationInfo) -> bool:
    return isinstance(info.context, dict) and bool(info.context.get("expose_secrets"))


def dump_with_secrets(model: BaseModel) -> dict[str, Any]:
    """`model` as a JSON-ready dict with secret values in clear and unset (None) fields left
    out: the body sent to a server you trust (`openhands.sdk.wire.to_wire` is this)."""
    return model.model_dump(mode="json", exclude_none=True, context={"expose_secrets": True})


def _with_kind(value: Any) -> Any:
    """A plain string is a StaticSecret's value; an object without `kind` is told by its keys."""
    if isinstance(value, str):
        return {"kind": "StaticSecret", "value": value}
    if isinstance(value, dict) and "kind" not in value:
        return {"kind": "LookupSecret" if "url" in value else "StaticSecret", **value}
    return value


SecretSpec = Annotated[
    Annotated[StaticSecret | LookupSecret, Field(discriminator="kind")],
    BeforeValidator(_with_kind),
]
"""A secret in a request body: `"value"`, `{"kind": "StaticSecret", "value": ...}` or
`{"kind": "LookupSecret", "url": ..., "headers": {...}}` (the reference's JSON)."""
