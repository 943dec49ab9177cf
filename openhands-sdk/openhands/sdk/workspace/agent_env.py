"""What environment the agent's processes get: this process's, minus its own secrets.

The terminal's shell, `verify` commands and hooks run what an agent (or a client) wrote, and
their output goes back into events, goal statuses and the LLM's context. So they must not
inherit the keys this process holds. `agent_environment()` is the one rule every spawner
uses: a variable is removed when its name is on the deny list below, unless it is named in
`OH_AGENT_ENV` (or the `passthrough` argument). Names are compared case-insensitively; values
are never inspected, so a secret hidden in an innocent name (e.g. a password inside
`DATABASE_URL`) is not detected: keep such variables out of the server's environment or
accept that the agent sees them.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping

AGENT_ENV_VAR = "OH_AGENT_ENV"
"""Comma-separated variable names passed to the agent's processes even if denied."""

AGENT_PATH_VAR = "OH_AGENT_PATH"
"""The `PATH` the agent's processes get instead of this process's own (unset or empty: the
same). For a folder the agent may write (a project virtualenv's `bin`) that must come first
for the agent but never be searched by this process, which runs what it finds there
(git, bwrap) outside the sandbox."""

DENIED_NAMES: tuple[str, ...] = (
    "OH_SESSION_API_KEYS",
    "OH_SECRET_KEY",
    "LLM_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "AZURE_API_KEY",
    "MISTRAL_API_KEY",
    "GROQ_API_KEY",
    "OPENROUTER_API_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "HF_TOKEN",
)
"""Names removed from the agent's environment (also matched by a pattern; listed so that the
common ones are documented by name)."""

DENIED_PATTERNS: tuple[str, ...] = (
    "OH_*",  # the server's own settings: session keys, secret key, paths, limits
    "*API_KEY*",  # LLM_API_KEY, OPENAI_API_KEY, OH_SESSION_API_KEYS, ...
    "*APIKEY*",
    "*_KEY",  # OH_SECRET_KEY, LITELLM_MASTER_KEY, STRIPE_KEY
    "*_KEYS",
    "*ACCESS_KEY*",  # AWS_ACCESS_KEY_ID
    "*PRIVATE_KEY*",
    "*SECRET*",  # AWS_SECRET_ACCESS_KEY, CLIENT_SECRET
    "*_TOKEN",  # GITHUB_TOKEN, HF_TOKEN, AWS_SESSION_TOKEN (not TOKENIZERS_PARALLELISM)
    "*_TOKENS",
    "TOKEN",
    "*PASSWORD*",  # PGPASSWORD
    "*PASSWD*",
    "*_PASS",
    "*CREDENTIAL*",  # GOOGLE_APPLICATION_CREDENTIALS
)
"""Shell-style patterns (`fnmatch`, on the upper-cased name) of names removed from the agent's
environment."""


def is_denied(name: str) -> bool:
    """True when `name` is one of this process's secrets by the deny list (before passthrough)."""
    upper = name.upper()
    return upper in DENIED_NAMES or any(fnmatch.fnmatchcase(upper, p) for p in DENIED_PATTERNS)


_configured_passthrough: frozenset[str] | None = None


def configure_agent_environment(*, passthrough: Iterable[str] | None) -> None:
    """Set the process-wide passthrough names (e.g. from the server's settings).

    Every spawner that is not given `passthrough` then uses these names instead of reading
    `OH_AGENT_ENV`; None goes back to reading `OH_AGENT_ENV`.
    """
    global _configured_passthrough
    _configured_passthrough = None if passthrough is None else frozenset(passthrough)


def passthrough_from_env(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """The names listed in `OH_AGENT_ENV` (comma-separated; blanks ignored)."""
    value = (os.environ if environ is None else environ).get(AGENT_ENV_VAR, "")
    return frozenset(name.strip() for name in value.split(",") if name.strip())


def agent_environment(
    base: Mapping[str, str] | None = None,
    *,
    passthrough: Iterable[str] | None = None,
) -> dict[str, str]:
    """The environment for a process the agent controls: `base` without this process's secrets.

    `base` defaults to `os.environ`. A variable is dropped when `is_denied(name)`, unless its
    exact name is in `passthrough` (default: the names given to `configure_agent_environment`,
    else those in `OH_AGENT_ENV`, read from `base`). `PATH` is `OH_AGENT_PATH` when that is set
    in `base`.
    """
    source = os.environ if base is None else base
    if passthrough is not None:
        allowed = frozenset(passthrough)
    elif _configured_passthrough is not None:
        allowed = _configured_passthrough
    else:
        allowed = passthrough_from_env(source)
    environment = {
        name: value for name, value in source.items() if name in allowed or not is_denied(name)
    }
    if agent_path := source.get(AGENT_PATH_VAR):
        environment["PATH"] = agent_path
    return environment
