"""`ServerConfig`: every setting, its environment variable and its limit, in one place.

`ServerConfig` is a pydantic-settings model. Each field reads `OH_<FIELD NAME>` (e.g.
`max_body_bytes` reads `OH_MAX_BODY_BYTES`), except the LLM defaults, which keep their
provider-neutral names `LLM_MODEL`, `LLM_BASE_URL` and `LLM_API_KEY`. Lists are comma
separated. An empty variable counts as unset; any other value that is not valid stops the
server at start-up with a message naming the variable (`ServerConfigError`).
docs/agent-server.md describes every setting (a test keeps the two in step).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from openhands.agent_server.config.env_source import (
    ENVIRON,
    MappingEnvSource,
    field_alias,
    plain_message,
    reading,
)
from openhands.agent_server.config.hosts import (
    ANY,
    HOST_NAME,
    format_origin,
    ip_or_none,
    normalize_host,
    parse_origin,
)
from openhands.agent_server.config.llm_endpoints import endpoint_of, server_key_allowed
from openhands.sdk.errors import OpenHandsError
from pydantic import (
    AliasChoices,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

if TYPE_CHECKING:
    from openhands.sdk.llm import LLM

ENV_PREFIX = "OH_"
MIN_KEY_CHARS = 32
"""The shortest key OH_SECRET_KEY (or the key file) may hold: a random value, not a password."""

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ServerConfigError(OpenHandsError, ValueError):
    """A setting has a value the server cannot use; the message names the variable."""


class ServerConfig(BaseSettings):
    """Everything the server needs to know before it starts; each field is a setting."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_ignore_empty=True,
        enable_decoding=False,  # lists are comma separated, not JSON
        frozen=True,
        validate_by_name=True,
        extra="ignore",
    )

    # -- who may call ---------------------------------------------------------------------

    session_api_keys: tuple[str, ...] = Field(
        default=(),
        # The reference server's names for one key are read when OH_SESSION_API_KEYS is unset.
        validation_alias=AliasChoices(
            "OH_SESSION_API_KEYS", "OH_SESSION_API_KEYS_0", "SESSION_API_KEY"
        ),
        description="Comma-separated keys. When set, every REST call except /health, /alive, "
        "the web page and /docs, and every WebSocket, needs one of them in the "
        "X-Session-API-Key header (sockets may use the session_api_key query parameter; the "
        "OpenAI-compatible /v1 routes also take it as `Authorization: Bearer`). A value that "
        "holds no key (e.g. ' , ') is refused: it would silently turn auth off. When unset, "
        "OH_SESSION_API_KEYS_0 or SESSION_API_KEY (one key each, the reference server's "
        "names) are read instead.",
    )
    host: str = Field(
        default="127.0.0.1",
        description="The interface to bind (also `--host`). A name or address bound here is "
        "also accepted in the Host header.",
    )
    port: int = Field(
        default=8000, ge=0, le=65535, description="The port to listen on (also `--port`)."
    )
    allowed_hosts: tuple[str, ...] = Field(
        default=(),
        description="Extra names the Host header may carry (comma separated; `*.example.com` "
        "matches subdomains; `*` accepts any, turning DNS-rebinding protection off). Always "
        "accepted: localhost, loopback addresses and the bound host; any IP address when "
        "bound to 0.0.0.0 or ::.",
    )
    allowed_origins: tuple[str, ...] = Field(
        default=(),
        description="Origins (scheme://host[:port], comma separated) whose pages may send "
        "state-changing requests (POST, PUT, PATCH, DELETE) and open WebSockets, besides the "
        "server's own origin. `*` accepts any origin (CSRF protection off). Requests without "
        "an Origin header (non-browser clients) are always accepted.",
    )

    # -- what it accepts ------------------------------------------------------------------

    max_body_bytes: int = Field(
        default=8 * 1024 * 1024,
        ge=0,
        description="Largest request body in bytes (8 MiB by default; 0 = unlimited). A larger "
        "body is refused with 413 while it streams, before it is held in memory.",
    )
    max_json_items: int = Field(
        default=20_000,
        ge=0,
        description="Most keys and list items a JSON request body may hold, counted while it "
        "is parsed in a worker thread (0 = unlimited). A body with more is refused with 413 "
        "before it is validated, so a body of many small items cannot stall the server.",
    )
    max_connections: int = Field(
        default=1000,
        ge=1,
        description="Open HTTP and WebSocket connections held at most (also at most half of "
        "the process's descriptor limit). A connection beyond it closes the one idle longest; "
        "if none is idle, it is answered 503 at once.",
    )
    http_header_timeout_seconds: float = Field(
        default=10.0,
        ge=0,
        le=3600,
        description="Seconds a connection may take to send a request's line and headers after "
        "it opens or after the previous answer (0 = no limit); a slower one is closed.",
    )
    http_keep_alive_seconds: int = Field(
        default=5,
        ge=1,
        le=3600,
        description="Seconds an idle keep-alive connection stays open after an answer.",
    )
    http_body_timeout_seconds: float = Field(
        default=30.0,
        ge=0,
        le=3600,
        description="Longest pause while a request body streams (0 = no limit); a slower "
        "body is answered 408.",
    )
    repeated_error_log_seconds: float = Field(
        default=60.0,
        ge=0,
        le=86_400,
        description="An event-loop error that repeats (e.g. accept() failing when the "
        "process is out of descriptors) is logged once, then once per this many seconds with "
        "a count (0 = every time).",
    )
    socket_auth_timeout: float = Field(
        default=10.0,
        gt=0,
        description="Seconds an event socket opened without a key may take to send its "
        'first frame, `{"type": "auth", "session_api_key": ...}` (the reference clients\' '
        "way), before it is closed with code 4001.",
    )

    # -- storage and work -----------------------------------------------------------------

    conversations_path: Path = Field(
        default=Path("workspace/conversations"),
        description="Where conversations are persisted (one folder per conversation id).",
    )
    workspace_path: Path = Field(
        default=Path("workspace/project"),
        description="The parent folder of default working directories, used when a "
        "StartConversationRequest names no workspace.",
    )
    max_bash_events: int = Field(
        default=10_000,
        ge=1,
        description="Commands and outputs of /api/bash kept for bash_events/search (in "
        "memory, newest kept; a restart forgets them).",
    )
    bash_stream_seconds: float = Field(
        default=0.25,
        ge=0,
        le=60,
        description="How often the output of a running /api/bash command is published as a "
        "BashOutput event without exit code (the reference's chunks); 0: only when it ends.",
    )
    public_skills_source: str | None = Field(
        default=None,
        description="The public skills catalog of /api/skills (its skills, /catalog, "
        "/marketplace, /sync) and /api/plugins/marketplace: a folder or a git URL (cloned "
        "once, fetched again by POST /api/skills/sync). Unset: no public catalog.",
    )
    git_timeout_seconds: float = Field(
        default=60.0,
        gt=0,
        le=3600,
        description="Longest a question of the git routes (/api/git/..., changes, diff, "
        "commits) may take; it runs in the sandbox and is killed after this.",
    )
    github_api_url: str = Field(
        default="https://api.github.com",
        description="The GitHub API that GET /api/git/repositories/search asks (with the "
        "stored secret github_token, GITHUB_TOKEN, GH_TOKEN or github), e.g. a GitHub "
        "Enterprise server's https://HOST/api/v3.",
    )
    max_run_threads: int = Field(
        default=256,
        ge=1,
        description="Threads for agent runs, judge calls and verify commands (each running "
        "conversation holds one while it runs; more runs wait in a queue).",
    )
    control_threads: int = Field(
        default=16,
        ge=1,
        description="Threads for the short blocking work requests wait for (appending a "
        "message, pause or goal status; opening, creating, closing, deleting a conversation), "
        "kept apart from the run threads so controls answer however many runs are queued. "
        "A UserPromptSubmit hook holds one while it runs.",
    )
    worker_nice: int = Field(
        default=10,
        ge=0,
        le=19,
        description="How much lower the OS priority of worker threads is than the event "
        "loop's (Linux nice, 0..19; 0 disables). Commands the agent runs inherit it.",
    )

    # -- start and stop -------------------------------------------------------------------

    deferred_init: bool = Field(
        default=False,
        description="Start dormant (a warm pool): /health answers, every other route but "
        "/api/init answers 503 until POST /api/init (header X-Init-API-Key: the server's "
        "OH_SECRET_KEY, or a key of its key file) delivers the runtime configuration. A "
        "restart after that comes back ready with the same configuration.",
    )
    init_record_path: Path | None = Field(
        default=None,
        description="Where a dormant server keeps the configuration POST /api/init delivered, "
        "sealed with the bootstrap key (default: `.init.sealed` beside the conversations "
        "folder).",
    )

    preload_litellm: bool = Field(
        default=True,
        description="When a configured model needs litellm (LLM_MODEL, the stored settings' LLM "
        "or an LLM profile whose model is not OpenAI-compatible: docs/llm.md), import litellm "
        "in a background thread once the server listens, so the first LLM call does not wait "
        "seconds for that import (costs ~150 MB of memory early). OpenAI-compatible models "
        "never load it. `false` imports it on the first call of such a model instead.",
    )
    graceful_shutdown_seconds: int = Field(
        default=5,
        ge=0,
        le=3600,
        description="On SIGTERM/SIGINT, how long open HTTP requests get to finish before "
        "their connections are closed (0 = no wait).",
    )
    shutdown_run_wait_seconds: float = Field(
        default=3.0,
        ge=0,
        le=3600,
        description="On SIGTERM/SIGINT, how long a running agent gets to end its current step "
        "(e.g. an LLM call) after goals are recorded `interrupted` and agents are paused; "
        "after that the server exits without it (0 = no wait). Nothing acknowledged is lost: "
        "every event is on disk before it is published.",
    )

    # -- stored settings, secrets and LLM profiles ------------------------------------------

    settings_path: Path | None = Field(
        default=None,
        description="Where /api/settings, /api/settings/secrets and /api/profiles are stored, "
        "their secrets sealed with OH_SECRET_KEY (default: `settings` beside the "
        "conversations folder).",
    )
    max_approval_rules: int = Field(
        default=500,
        ge=1,
        description="How many standing approvals (approval_rules) one conversation may hold; "
        "a PUT or POST past it is 422.",
    )
    max_profiles: int = Field(
        default=50, ge=1, description="How many LLM profiles /api/profiles may hold."
    )
    max_secrets: int = Field(
        default=500, ge=1, description="How many named secrets /api/settings/secrets may hold."
    )
    max_secret_bytes: int = Field(
        default=64 * 1024,
        ge=1,
        description="Largest value of one stored secret, in bytes (UTF-8).",
    )
    max_workspaces: int = Field(
        default=500,
        ge=1,
        description="How many saved workspaces, and how many workspace parents, "
        "/api/workspaces may hold.",
    )
    max_agent_profiles: int = Field(
        default=50, ge=1, description="How many agent profiles /api/agent-profiles may hold."
    )
    max_provider_connections: int = Field(
        default=50,
        ge=1,
        description="How many provider connections /api/llm/provider-connections may hold.",
    )
    max_settings_bytes: int = Field(
        default=1024 * 1024,
        ge=1,
        description="Largest stored settings document (agent, conversation and misc settings "
        "as JSON), in bytes.",
    )

    # -- the OpenAI-compatible gateway -------------------------------------------------------

    gateway_wait_seconds: float = Field(
        default=900.0,
        ge=0,
        description="How long POST /v1/chat/completions waits for the agent's run (or goal) "
        "to end before it answers 504 (the run goes on; 0 = no limit).",
    )
    gateway_keepalive_seconds: float = Field(
        default=15.0,
        gt=0,
        le=300,
        description="While a streamed chat completion waits, an SSE comment line is sent this "
        "often so proxies keep the connection open.",
    )

    # -- where goals run ---------------------------------------------------------------------

    goal_backend: Literal["builtin", "temporal"] = Field(
        default="builtin",
        description="`builtin`: each goal loop is a task in this server. `temporal`: goals are "
        "Temporal workflows run by `openhands-goal-worker` processes (needs the `temporal` "
        "extra); the REST routes stay the same.",
    )
    temporal_address: str = Field(
        default="127.0.0.1:7233", description="host:port of the Temporal frontend."
    )
    temporal_namespace: str = Field(default="default", description="The Temporal namespace.")
    temporal_task_queue: str = Field(
        default="openhands-goals", description="The task queue the goal workers poll."
    )
    temporal_stop_seconds: float = Field(
        default=10.0,
        ge=0,
        le=3600,
        description="How long stopping a goal on Temporal (POST /goal/stop, a user message, "
        "shutdown) waits for its workflow to record the end; after that the server records it "
        "and terminates the workflow (e.g. no worker is running).",
    )
    temporal_step_wait_seconds: float = Field(
        default=2.0,
        gt=0,
        le=10,
        description="How long a goal worker's step call waits on this server for the step to end "
        "(a local activity lasts seconds); a step that takes longer is signalled to its "
        "workflow when it ends.",
    )
    temporal_task_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        le=120,
        description="Temporal's workflow task timeout for goal workflows: how long a task a "
        "worker took may go unanswered before another worker gets it (a worker that died "
        "mid-step is replaced after this). Longer than OH_TEMPORAL_STEP_WAIT_SECONDS.",
    )
    temporal_recheck_seconds: float = Field(
        default=60.0,
        gt=0,
        le=3600,
        description="How long a goal workflow waits for a long step's signal before asking this "
        "server again (only a lost signal, e.g. Temporal restarting, costs this much).",
    )
    public_url: str | None = Field(
        default=None,
        description="The URL goal workers use to reach this server (default: "
        "http://<host>:<port>).",
    )

    # -- secrets and the agent's environment ----------------------------------------------

    secret_key: SecretStr | None = Field(
        default=None,
        description="The key that seals the secrets clients send (LLM keys, MCP env and "
        "headers) at rest: a random value of at least 32 characters. Several keys, comma "
        "separated and newest first, rotate: the first seals, any opens. Unset: the keys in "
        "`.secret_key` beside the conversations folder (generated once, mode 0600).",
    )
    agent_env: tuple[str, ...] = Field(
        default=(),
        description="Names of server environment variables (comma separated) passed to the "
        "agent's terminal, verify commands and hooks although they would be withheld as "
        "server secrets.",
    )

    # -- the agent's sandbox ----------------------------------------------------------------

    sandbox: Literal["auto", "bwrap", "off"] = Field(
        default="auto",
        description="Run the agent's terminal, verify commands, hooks, MCP stdio servers and "
        "/api/bash in a bubblewrap sandbox: the system read-only, the conversation's "
        "workspace writable, the conversations folder, the key file and other workspaces "
        "invisible, a private /tmp. `bwrap`: required (the server refuses to start without "
        "it); `auto`: when bubblewrap works, else a warning at start and in /server_info; "
        "`off`: never.",
    )
    sandbox_network: bool = Field(
        default=True,
        description="Give sandboxed processes network: outbound through slirp4netns in their "
        "own network namespace, never to the host's loopback (the server's port); without a "
        "working slirp4netns they get none, with a warning. `false`: no network at all.",
    )
    sandbox_writable: tuple[str, ...] = Field(
        default=(),
        description="Folders (comma separated, absolute, existing) that sandboxed processes "
        "may write besides their workspace, e.g. a shared virtualenv the agent installs into. "
        "Refused at start: `/` (or a link to it), /proc, /sys, /dev, a folder holding or "
        "inside the server's own venv, Python or packages, or its data (conversations, key "
        "file, settings), relative or missing folders, `:`-separated lists.",
    )

    # -- LLM defaults (names without the OH_ prefix) -------------------------------------

    llm_model: str | None = Field(
        default=None,
        validation_alias="LLM_MODEL",
        description="The model the web page offers for new conversations.",
    )
    llm_base_url: str | None = Field(
        default=None,
        validation_alias="LLM_BASE_URL",
        description="Given to a new conversation's LLM that names LLM_MODEL and no base_url.",
    )
    llm_api_key: SecretStr | None = Field(
        default=None,
        validation_alias="LLM_API_KEY",
        description="Given to any agent LLM that has no api_key, new or reloaded.",
    )

    LIST_FIELDS: ClassVar[tuple[str, ...]] = (
        "session_api_keys",
        "allowed_hosts",
        "allowed_origins",
        "agent_env",
        "sandbox_writable",
    )

    # -- parsing --------------------------------------------------------------------------

    @field_validator(*LIST_FIELDS, mode="before")
    @classmethod
    def _split_commas(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, str):
            return value
        found = tuple(item.strip() for item in value.split(",") if item.strip())
        if value and not found:
            if info.field_name == "session_api_keys":
                raise ValueError(
                    "holds no key, so the server would run without authentication; give "
                    "comma-separated keys, or unset the variable to run without keys"
                )
            raise ValueError("holds no entry; give comma-separated values, or unset it")
        return found

    @field_validator("allowed_hosts")
    @classmethod
    def _valid_hosts(cls, hosts: tuple[str, ...]) -> tuple[str, ...]:
        normalized = []
        for host in hosts:
            name = normalize_host(host)
            if name != ANY and not (HOST_NAME.match(name) or ip_or_none(name) is not None):
                raise ValueError(
                    f"{host!r} is not a host name or address (give names like "
                    "'agents.example.com', '*.example.com' or '10.0.0.5', without port)"
                )
            normalized.append(name)
        return tuple(normalized)

    @field_validator("allowed_origins")
    @classmethod
    def _valid_origins(cls, origins: tuple[str, ...]) -> tuple[str, ...]:
        normalized = []
        for origin in origins:
            if origin == ANY:
                normalized.append(ANY)
                continue
            parsed = parse_origin(origin)
            if parsed is None:
                raise ValueError(
                    f"{origin!r} is not an origin; give scheme://host[:port], e.g. "
                    "'https://app.example.com' (no path)"
                )
            normalized.append(format_origin(*parsed))
        return tuple(normalized)

    @field_validator("agent_env")
    @classmethod
    def _valid_env_names(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        for name in names:
            if not _ENV_NAME.match(name):
                raise ValueError(f"{name!r} is not an environment variable name")
        return names

    @field_validator("sandbox_writable")
    @classmethod
    def _safe_writable(cls, paths: tuple[str, ...]) -> tuple[str, ...]:
        # Imported here: the workspace package is not needed to read the other settings.
        # The server's data folders are checked once all settings are read (start_sandbox).
        from openhands.sdk.workspace.sandbox_safety import writable_problem

        for path in paths:
            problem = writable_problem(path)
            if problem is not None:
                raise ValueError(problem)
        return paths

    @field_validator("llm_model", "llm_base_url", "llm_api_key", "secret_key", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value.strip() or None
        return value

    @field_validator("secret_key")
    @classmethod
    def _valid_secret_key(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        keys = [key.strip() for key in value.get_secret_value().split(",")]
        if not any(keys):
            raise ValueError("holds no key; give a random value, or unset it")
        if any(len(key) < MIN_KEY_CHARS for key in keys if key):
            # Never echo the value: it is the key.
            raise ValueError(
                f"each key needs at least {MIN_KEY_CHARS} characters of a random value, e.g. "
                "from: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )
        return value

    @field_validator("host")
    @classmethod
    def _valid_host(cls, host: str) -> str:
        return host.strip()

    @field_validator("temporal_task_timeout_seconds")
    @classmethod
    def _task_outlasts_a_step_call(cls, timeout: float, info: ValidationInfo) -> float:
        step_wait = info.data.get("temporal_step_wait_seconds")
        if step_wait is not None and timeout <= step_wait:
            raise ValueError(
                f"must be longer than OH_TEMPORAL_STEP_WAIT_SECONDS ({step_wait:g}): a step call "
                "holds its workflow task that long"
            )
        return timeout

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Arguments, then the environment (or the mapping given to `from_env`); no files."""
        environ = ENVIRON.get()
        env = env_settings if environ is None else MappingEnvSource(settings_cls, environ)
        return (init_settings, env)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ServerConfig:
        """Build the config from the environment (or `environ`); ServerConfigError if invalid."""
        try:
            with reading(environ):
                return cls()
        except ValidationError as exc:
            problems = [
                f"{cls.env_name(str(err['loc'][0])) if err['loc'] else 'config'}: "
                f"{plain_message(err['msg'])}"
                for err in exc.errors()
            ]
            raise ServerConfigError("; ".join(problems)) from None

    @classmethod
    def env_name(cls, field: str) -> str:
        """The environment variable of a field (`max_body_bytes` -> `OH_MAX_BODY_BYTES`)."""
        info = cls.model_fields.get(field)
        if info is None:  # already an alias (LLM_MODEL ...)
            return field
        return field_alias(info) or f"{ENV_PREFIX}{field.upper()}"

    @classmethod
    def env_names(cls) -> dict[str, str]:
        """Every field and its environment variable."""
        return {field: cls.env_name(field) for field in cls.model_fields}

    # -- derived --------------------------------------------------------------------------

    @property
    def auth_enabled(self) -> bool:
        """True when session API keys are configured."""
        return bool(self.session_api_keys)

    @property
    def settings_folder(self) -> Path:
        """Where settings, stored secrets and LLM profiles live (OH_SETTINGS_PATH or default)."""
        if self.settings_path is not None:
            return self.settings_path
        return self.conversations_path.resolve().parent / "settings"

    @property
    def init_record_file(self) -> Path:
        """Where a dormant server keeps its /api/init configuration (OH_INIT_RECORD_PATH)."""
        if self.init_record_path is not None:
            return self.init_record_path
        return self.conversations_path.resolve().parent / ".init.sealed"

    def fill_llm(self, llm: LLM) -> None:
        """Give an agent LLM the server's LLM_BASE_URL (if it names LLM_MODEL and no URL) and
        LLM_API_KEY where it has none, but the key only if its calls go where the key is for
        (`llm_endpoints.server_key_allowed`): a client naming another URL never gets it."""
        if llm.base_url is None and self.llm_base_url and llm.model == self.llm_model:
            llm.base_url = self.llm_base_url
        if llm.api_key is None and self.llm_api_key is not None:
            if server_key_allowed(llm, base_url=self.llm_base_url, model=self.llm_model):
                llm.api_key = self.llm_api_key
            else:
                _logger.warning(
                    "LLM_API_KEY is not given to the LLM %r at %s: the server sends it only to "
                    "%s; send the LLM with its own api_key",
                    llm.model,
                    endpoint_of(llm).url or "its provider's default endpoint",
                    self.llm_base_url or _provider_default(self.llm_model),
                )


_logger = logging.getLogger(__name__)


def _provider_default(model: str | None) -> str:
    if model is None:
        return "an LLM without base_url"
    return f"the default endpoint of {model}'s provider"
