"""How `ServerConfig` reads its sources: the environment, or a mapping given to `from_env`.

pydantic-settings reads os.environ; `reading(environ)` makes one build read a given mapping
instead (tests, and a server built from a recorded configuration), through `MappingEnvSource`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource
from pydantic_settings.sources.utils import parse_env_vars

# Set by `from_env(environ)` so that one build reads a given mapping instead of os.environ.
ENVIRON: ContextVar[Mapping[str, str] | None] = ContextVar("oh_server_environ", default=None)


class MappingEnvSource(EnvSettingsSource):
    """The environment source, reading a given mapping instead of os.environ."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(
            self._environ, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str
        )


@contextmanager
def reading(environ: Mapping[str, str] | None) -> Iterator[None]:
    """Within the block, settings builds read `environ` (None: os.environ)."""
    token = ENVIRON.set(environ)
    try:
        yield
    finally:
        ENVIRON.reset(token)


def field_alias(info: FieldInfo) -> str | None:
    """The one environment name a field reads instead of OH_<FIELD> (LLM_MODEL ...), if any."""
    alias = info.validation_alias
    return alias if isinstance(alias, str) else None


def plain_message(message: str) -> str:
    """A validation message as a user reads it."""
    # pydantic prefixes messages of custom validators with "Value error, ".
    return message.removeprefix("Value error, ")
