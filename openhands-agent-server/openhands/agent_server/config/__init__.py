"""Server configuration: every setting, its environment variable and its limit.

`server_config.py` holds `ServerConfig` (the settings and their checks), `env_source.py` how
it reads the environment, `hosts.py` how hosts and origins are compared. The names are
re-exported here, where callers import them.
"""

from openhands.agent_server.config.hosts import (
    ANY,
    DEFAULT_PORTS,
    LOOPBACK_NAMES,
    WILDCARD_HOSTS,
    format_origin,
    is_loopback,
    is_wildcard,
    normalize_host,
    parse_origin,
)
from openhands.agent_server.config.server_config import (
    ENV_PREFIX,
    MIN_KEY_CHARS,
    ServerConfig,
    ServerConfigError,
)

__all__ = [
    "ANY",
    "DEFAULT_PORTS",
    "ENV_PREFIX",
    "LOOPBACK_NAMES",
    "MIN_KEY_CHARS",
    "WILDCARD_HOSTS",
    "ServerConfig",
    "ServerConfigError",
    "format_origin",
    "is_loopback",
    "is_wildcard",
    "normalize_host",
    "parse_origin",
]
