"""Server configuration, read from the environment (see docs/agent-server.md)."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

if TYPE_CHECKING:
    from openhands.sdk.llm import LLM

LOOPBACK_NAMES = {"localhost", "ip6-localhost"}
_ENV_NAMES = {
    "session_api_keys": "OH_SESSION_API_KEYS",
    "conversations_path": "OH_CONVERSATIONS_PATH",
    "workspace_path": "OH_WORKSPACE_PATH",
    "max_run_threads": "OH_MAX_RUN_THREADS",
    "worker_nice": "OH_WORKER_NICE",
}


LLM_ENV_NAMES = {
    "LLM_MODEL": "llm_model",
    "LLM_BASE_URL": "llm_base_url",
    "LLM_API_KEY": "llm_api_key",
}


class ServerConfig(BaseModel):
    """What the server needs to know before it starts; every field has an env variable."""

    model_config = ConfigDict(frozen=True)

    session_api_keys: tuple[str, ...] = Field(
        default=(),
        description="OH_SESSION_API_KEYS (comma separated). When non-empty, every REST and "
        "WebSocket call except /health and /alive needs header X-Session-API-Key.",
    )
    conversations_path: Path = Field(
        default=Path("workspace/conversations"),
        description="OH_CONVERSATIONS_PATH: where conversations are persisted "
        "(one folder per conversation id).",
    )
    workspace_path: Path = Field(
        default=Path("workspace/project"),
        description="OH_WORKSPACE_PATH: the parent folder of default working directories, used "
        "when a StartConversationRequest names no workspace.",
    )
    max_run_threads: int = Field(
        default=256,
        ge=1,
        description="OH_MAX_RUN_THREADS: threads available for agent runs, judge calls and "
        "other blocking work (each running conversation holds one while it runs).",
    )

    worker_nice: int = Field(
        default=10,
        ge=0,
        le=19,
        description="OH_WORKER_NICE: how much lower the OS priority of worker threads is than "
        "the event loop's (Linux nice, 0..19; 0 disables). Commands the agent runs inherit it.",
    )

    llm_model: str | None = Field(
        default=None,
        description="LLM_MODEL: the model the web page offers for new conversations.",
    )
    llm_base_url: str | None = Field(
        default=None,
        description="LLM_BASE_URL: given to a new conversation's LLM that names LLM_MODEL and "
        "no base_url.",
    )
    llm_api_key: SecretStr | None = Field(
        default=None,
        description="LLM_API_KEY: given to any agent LLM that has no api_key, new or reloaded "
        "(keys are never written to disk).",
    )

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> ServerConfig:
        """Build the config from OH_* environment variables (defaults where unset)."""
        env = os.environ if environ is None else environ
        keys = tuple(k.strip() for k in env.get("OH_SESSION_API_KEYS", "").split(",") if k.strip())
        values: dict[str, object] = {"session_api_keys": keys}
        if env.get("OH_CONVERSATIONS_PATH"):
            values["conversations_path"] = Path(env["OH_CONVERSATIONS_PATH"])
        if env.get("OH_WORKSPACE_PATH"):
            values["workspace_path"] = Path(env["OH_WORKSPACE_PATH"])
        for name, field in LLM_ENV_NAMES.items():
            if env.get(name, "").strip():
                values[field] = env[name].strip()
        for name, field in (
            ("OH_MAX_RUN_THREADS", "max_run_threads"),
            ("OH_WORKER_NICE", "worker_nice"),
        ):
            if env.get(name):
                try:
                    values[field] = int(env[name])
                except ValueError as exc:
                    raise ValueError(f"{name} must be an integer, got {env[name]!r}") from exc
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problem = exc.errors()[0]
            field = str(problem["loc"][0]) if problem["loc"] else "config"
            raise ValueError(f"{_ENV_NAMES.get(field, field)}: {problem['msg']}") from exc

    @property
    def auth_enabled(self) -> bool:
        """True when session API keys are configured."""
        return bool(self.session_api_keys)

    def fill_llm(self, llm: LLM) -> None:
        """Give an agent LLM the server's LLM_API_KEY (and LLM_BASE_URL) where it has none."""
        if llm.api_key is None and self.llm_api_key is not None:
            llm.api_key = self.llm_api_key
        if llm.base_url is None and self.llm_base_url and llm.model == self.llm_model:
            llm.base_url = self.llm_base_url


def is_loopback(host: str) -> bool:
    """Whether binding `host` only accepts connections from this machine."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
