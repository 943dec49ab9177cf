"""`WarmStart`: a server started dormant (OH_DEFERRED_INIT) and the one init that readies it.

A warm pool starts servers before it knows their user. Such a server answers /health, and
503 on every other route (edge/dormant.py), until `POST /api/init` delivers the runtime
configuration: session keys, the sealing key, where conversations and workspaces live, the
process environment (an LLM key, tool credentials). The call proves itself with the
bootstrap key (`X-Init-API-Key`: OH_SECRET_KEY, or a key of the key file), which the pool
already holds.

The init is all or nothing: the configuration is checked first (a bad value is a 422 naming
it), then recorded (sealed with the bootstrap key, before anything starts), then the
services start; if they cannot, the record, the environment and the state are put back and
the server stays dormant (the error is kept for `GET /api/init`). A second init is refused
(400). A server restarted with its record comes back ready with the same configuration.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Literal

from openhands.agent_server.config import ServerConfig, ServerConfigError
from openhands.agent_server.errors import BadRequestError, InvalidRequestError
from openhands.agent_server.services.sealing import SecretBox, UnsealError
from openhands.agent_server.services.settings_folder import (
    ensure_folder,
    remove_file,
)
from openhands.sdk.errors import storage_error
from openhands.sdk.io import remove_leftover_temp_files, write_atomic
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

logger = logging.getLogger(__name__)

InitState = Literal["dormant", "initializing", "ready"]

INIT_KEY_HEADER = "X-Init-API-Key"
"""The header carrying the bootstrap key on POST /api/init."""

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class InitRequest(BaseModel):
    """POST /api/init: the runtime configuration; each field overrides the dormant server's."""

    model_config = ConfigDict(extra="allow")

    session_api_keys: list[str] | None = Field(
        default=None, description="The session keys every later request must carry."
    )
    secret_key: SecretStr | None = Field(
        default=None,
        description="The key that seals secrets from now on (OH_SECRET_KEY); default: the "
        "dormant server's.",
    )
    conversations_path: Path | None = Field(
        default=None, description="Where conversations persist (OH_CONVERSATIONS_PATH)."
    )
    workspace_path: Path | None = Field(
        default=None, description="Parent of default working directories (OH_WORKSPACE_PATH)."
    )
    max_concurrent_runs: int | None = Field(
        default=None, ge=1, description="Worker threads for agent runs (OH_MAX_RUN_THREADS)."
    )
    env: dict[str, str] | None = Field(
        default=None,
        description="Process environment variables set before the services start (e.g. "
        "LLM_API_KEY); OH_* names among them are settings like the ones above.",
    )

    @field_validator("env")
    @classmethod
    def _env_names(cls, env: dict[str, str] | None) -> dict[str, str] | None:
        for name, value in (env or {}).items():
            if not _ENV_NAME.match(name):
                raise ValueError(f"{name!r} is not an environment variable name")
            if "\x00" in value:
                raise ValueError(f"the value of {name} holds a NUL byte, which no process takes")
        return env

    @field_validator("session_api_keys")
    @classmethod
    def _keys(cls, keys: list[str] | None) -> list[str] | None:
        if keys is not None and not [key for key in keys if key.strip()]:
            raise ValueError("holds no key; give at least one, or leave it out")
        return keys

    def settings_env(self) -> dict[str, str]:
        """The environment variables this request sets, its named fields as OH_* settings."""
        env = dict(self.env or {})
        if self.session_api_keys is not None:
            env["OH_SESSION_API_KEYS"] = ",".join(k.strip() for k in self.session_api_keys)
        if self.secret_key is not None:
            env["OH_SECRET_KEY"] = self.secret_key.get_secret_value()
        if self.conversations_path is not None:
            env["OH_CONVERSATIONS_PATH"] = str(self.conversations_path)
        if self.workspace_path is not None:
            env["OH_WORKSPACE_PATH"] = str(self.workspace_path)
        if self.max_concurrent_runs is not None:
            env["OH_MAX_RUN_THREADS"] = str(self.max_concurrent_runs)
        return env


class InitStatus(BaseModel):
    """GET and POST /api/init: where the server is in its start."""

    state: InitState = Field(
        description="`dormant`: waiting for POST /api/init; `initializing`: the services are "
        "starting; `ready`: every route is live."
    )
    error: str | None = Field(
        default=None, description="Why the last init failed (the server stayed dormant)."
    )


class InitRecord(BaseModel):
    """The init configuration as recorded for a restart (sealed as a whole)."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    env: dict[str, str]


Activate = Callable[[ServerConfig], Awaitable[None]]
"""Starts the server's services with the configuration after init (raises if they fail)."""


class WarmStart:
    """The dormant -> ready life cycle of one server; the one init it accepts."""

    def __init__(self, dormant: ServerConfig, bootstrap: SecretBox, activate: Activate) -> None:
        self._dormant = dormant
        self._bootstrap = bootstrap
        self._activate = activate
        self._record = dormant.init_record_file
        self._lock = asyncio.Lock()
        self.state: InitState = "dormant"
        self.error: str | None = None

    @property
    def ready(self) -> bool:
        """True once the services run."""
        return self.state == "ready"

    def status(self) -> InitStatus:
        """The state and the last init's error."""
        return InitStatus(state=self.state, error=self.error)

    def authorized(self, key: str | None) -> bool:
        """Whether `key` is the bootstrap key (constant time)."""
        return self._bootstrap.matches(key)

    async def restore(self) -> bool:
        """At start-up: become ready with the recorded init, if there is one (True)."""
        env = await asyncio.to_thread(self._read_record)
        if env is None:
            return False
        async with self._lock:
            self.state = "initializing"
            await self._start(env, write=False)
        logger.info("Deferred init: restarted ready with the recorded configuration")
        return True

    async def initialize(self, request: InitRequest) -> InitStatus:
        """Apply `request` and start the services; 400 if this server was initialized."""
        unknown = sorted(set(request.model_extra or {}))
        if unknown:
            logger.info("/api/init: ignoring fields this server does not use: %s", unknown)
        async with self._lock:
            if self.state != "dormant":
                raise BadRequestError(
                    f"The server is {self.state} already: it accepts one init. Start a new "
                    "server (or remove its init record and restart it) to configure another."
                )
            self.state = "initializing"
            self.error = None
            await self._start(request.settings_env(), write=True)
        logger.info("Deferred init: the server is ready")
        return self.status()

    async def _start(self, env: dict[str, str], *, write: bool) -> None:
        """Check, record (if `write`), apply and start; on failure undo all and stay dormant."""
        previous = {name: os.environ.get(name) for name in env}
        recorded = False
        try:
            config = self.config_for(env)
            if write:
                await asyncio.to_thread(self._write_record, env)
                recorded = True
            os.environ.update(env)
            await self._activate(config)
        except BaseException as exc:
            for name, value in previous.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            if recorded:
                await asyncio.to_thread(remove_file, self._record)
            self.state = "dormant"
            self.error = f"{type(exc).__name__}: {exc}"
            logger.error("Deferred init failed; the server stays dormant: %s", self.error)
            raise
        self.state = "ready"

    def config_for(self, env: dict[str, str]) -> ServerConfig:
        """The settings after init: the dormant server's settings with `env` on top.

        The bound host and port stay the dormant server's. A value no setting accepts is an
        `InvalidRequestError` naming the variable.
        """
        try:
            config = ServerConfig.from_env({**as_env(self._dormant), **env})
        except ServerConfigError as exc:
            raise InvalidRequestError(str(exc), ("body",)) from None
        return config.model_copy(
            update={"host": self._dormant.host, "port": self._dormant.port, "deferred_init": False}
        )

    # -- the record (blocking) --------------------------------------------------------------

    def _write_record(self, env: dict[str, str]) -> None:
        ensure_folder(self._record.parent)
        token = self._bootstrap.seal(InitRecord(env=env).model_dump_json().encode())
        write_atomic(self._record, token)

    def _read_record(self) -> dict[str, str] | None:
        remove_leftover_temp_files(self._record.parent, [self._record.name])
        try:
            token = self._record.read_text()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise storage_error("read", self._record, exc) from exc
        try:
            return InitRecord.model_validate_json(self._bootstrap.open(token.strip())).env
        except (UnsealError, ValidationError) as exc:
            logger.error(
                "The init record %s cannot be read (%s); the server starts dormant. Restore "
                "the bootstrap key it was sealed with, or remove the file and init again.",
                self._record,
                exc,
            )
            return None


def as_env(config: ServerConfig) -> dict[str, str]:
    """`config` as the environment variables that would set it (unset ones left out)."""
    env: dict[str, str] = {}
    for field, name in ServerConfig.env_names().items():
        value = getattr(config, field)
        if value is None:
            continue
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        elif isinstance(value, tuple):
            value = ",".join(value)
        elif isinstance(value, bool):
            value = "true" if value else "false"
        env[name] = str(value)
    return env
