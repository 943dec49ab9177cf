"""`openhands-agent-server` / `python -m openhands.agent_server`: start the server."""

from __future__ import annotations

import argparse
import asyncio
import errno
import gc
import logging
import os
import re
import socket
import sys
from collections.abc import Mapping
from typing import Any

from openhands.agent_server.config import ServerConfig, is_loopback
from openhands.agent_server.log_redaction import install_log_redaction

logger = logging.getLogger("openhands.agent_server")

UNPROTECTED_WARNING = """
******************************************************************************
 WARNING: the agent server listens on {host}, reachable from other machines,
 and OH_SESSION_API_KEYS is not set: ANYONE who can reach this port can run
 commands on this machine through the agent. Set OH_SESSION_API_KEYS=<secret>
 (clients send it as the X-Session-API-Key header), or bind 127.0.0.1.
******************************************************************************"""


POLLED_PATHS = re.compile(
    r"^/api/conversations/(search|count|[0-9a-fA-F-]{32,36}(/events/count|/goal)?)$"
)
"""What the web page reads again every few seconds: the list and the open conversation."""


class QuietPolls(logging.Filter):
    """Logs the web page's repeated reads (a successful GET of `POLLED_PATHS`) at DEBUG, so
    an open page does not flood the terminal; every other request is logged as before."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not (isinstance(args, tuple) and len(args) == 5):
            return True
        _, method, path, _, status = args
        polled = (
            method in ("GET", "HEAD")
            and isinstance(status, int)
            and status < 400
            and isinstance(path, str)
            and POLLED_PATHS.match(path.split("?", 1)[0]) is not None
        )
        if not polled:
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


def bind_port(host: str, port: int) -> socket.socket:
    """The server's socket, bound to host:port; exits naming the port when it is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # Named TCP, not left 0: asyncio switches Nagle's algorithm off (TCP_NODELAY) only on
    # connections whose socket says IPPROTO_TCP, and with it on every answer on a kept-alive
    # connection waited ~40 ms for the client's delayed ACK (headers and body are two writes).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            sys.exit(
                f"openhands-agent-server: port {port} on {host} is already in use (another "
                f"agent server, or `make demo`, may be running). Choose another port: "
                f"`PORT={port + 1} make serve` or `openhands-agent-server --port {port + 1}`."
            )
        sys.exit(f"openhands-agent-server: cannot listen on {host}:{port}: {exc.strerror or exc}")
    sock.set_inheritable(True)
    return sock


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command-line options (each overrides its OH_* setting)."""
    parser = argparse.ArgumentParser(
        prog="openhands-agent-server",
        description="Serve conversations over REST and WebSocket, with background goal loops. "
        "Every setting is an environment variable (OH_SESSION_API_KEYS, "
        "OH_CONVERSATIONS_PATH, OH_ALLOWED_HOSTS, OH_MAX_BODY_BYTES ...; see "
        "docs/agent-server.md).",
    )
    parser.add_argument(
        "--host", default=None, help="Interface to bind (default OH_HOST, else 127.0.0.1)."
    )
    parser.add_argument(
        "--port", type=int, default=None, help="Port to listen on (default OH_PORT, else 8000)."
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="Log level (default info).",
    )
    return parser.parse_args(argv)


def unprotected_bind_warning(host: str, config: ServerConfig) -> str | None:
    """The loud warning for a non-loopback bind without a session key, else None."""
    if config.auth_enabled or is_loopback(host):
        return None
    return UNPROTECTED_WARNING.format(host=host)


def load_config(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> ServerConfig:
    """The settings from the environment, with the command line's --host and --port on top."""
    config = ServerConfig.from_env(environ)
    overrides = {name: getattr(args, name) for name in ("host", "port")}
    return config.model_copy(update={k: v for k, v in overrides.items() if v is not None})


def main(argv: list[str] | None = None) -> None:
    """Read the config, warn about an unprotected public bind, and run uvicorn."""
    args = parse_args(argv)
    # Third-party libraries (litellm) stay at WARNING; the server logs at the chosen level.
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("openhands").setLevel(args.log_level.upper())
    try:
        config = load_config(args)
    except ValueError as exc:
        sys.exit(f"openhands-agent-server: invalid setting: {exc}")
    install_log_redaction(_configured_secrets(config))
    warning = unprotected_bind_warning(config.host, config)
    if warning is not None:
        logger.warning(warning)
    # Bound first: a port in use is said at once, in words, before the app is built.
    listener = bind_port(config.host, config.port)
    # Where tools running in this process reach it (start_child_conversation's launcher).
    os.environ.setdefault("OH_INTERNAL_SERVER_URL", own_url(config.host, listener.getsockname()[1]))

    # Start-up builds many long-lived objects (pydantic schemas, routes): collecting garbage
    # meanwhile only costs time, and freezing them afterwards keeps later collections short.
    gc.disable()
    import uvicorn
    from openhands.agent_server.app import create_app
    from openhands.agent_server.http_protocol import GuardedHTTPProtocol
    from openhands.agent_server.litellm_preload import preload_litellm
    from openhands.agent_server.loop_errors import ThrottledLoopErrors
    from openhands.agent_server.ws_protocol import DenialAwareWebSocketProtocol

    try:
        app = create_app(config)
    except ValueError as exc:  # ServerConfigError: e.g. a key file that cannot be read
        sys.exit(f"openhands-agent-server: invalid setting: {exc}")
    gc.freeze()
    gc.enable()
    server_config = uvicorn.Config(
        app,
        host=config.host,
        port=config.port,
        http=GuardedHTTPProtocol.configure(
            max_connections=config.max_connections,
            header_timeout=config.http_header_timeout_seconds,
        ),
        ws=DenialAwareWebSocketProtocol,
        log_level=args.log_level,
        timeout_keep_alive=config.http_keep_alive_seconds,
        timeout_graceful_shutdown=config.graceful_shutdown_seconds,
    )
    logging.getLogger("uvicorn.access").addFilter(QuietPolls())

    class Server(uvicorn.Server):
        """uvicorn's server: repeated loop errors are logged once per interval, and the
        litellm preload (when a configured model needs it) starts once its sockets listen."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            asyncio.get_running_loop().set_exception_handler(
                ThrottledLoopErrors(config.repeated_error_log_seconds)
            )
            await super().startup(sockets)
            pools = getattr(app.state, "pools", None)  # none yet on a dormant server
            if self.started and config.preload_litellm and pools is not None:
                preload_litellm(pools.runs, config, getattr(app.state, "server_settings", None))

    try:
        Server(server_config).run(sockets=[listener])
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C once it has shut down
        _exit_now_if_steps_run(app.state, 130)
        raise SystemExit(130) from None
    _exit_now_if_steps_run(app.state, 0)


def own_url(host: str, port: int) -> str:
    """The base URL of this server as seen from its own machine (a wildcard bind is reached
    on loopback)."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _configured_secrets(config: ServerConfig) -> list[str]:
    """The keys this server was given, which no log line may show."""
    secrets = list(config.session_api_keys)
    if config.secret_key is not None:
        secrets += [key.strip() for key in config.secret_key.get_secret_value().split(",")]
    if config.llm_api_key is not None:
        secrets.append(config.llm_api_key.get_secret_value())
    return [secret for secret in secrets if secret]


def _exit_now_if_steps_run(state: Any, code: int) -> None:
    """Exit at once if shutdown left agent steps running in worker threads.

    Python would otherwise wait at exit for those threads (an LLM call may take minutes).
    What they were doing was never acknowledged; everything that was is on disk. (On
    SIGTERM uvicorn re-raises the signal itself, which ends the process the same way.)
    """
    left = getattr(state, "steps_left_running", 0)
    if not left:
        return
    logger.warning("exiting with %d agent step(s) still running; they are abandoned", left)
    logging.shutdown()
    os._exit(code)


if __name__ == "__main__":
    main()
