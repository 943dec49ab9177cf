"""`openhands-agent-server` / `python -m openhands.agent_server`: start the server."""

from __future__ import annotations

import argparse
import gc
import logging
import re
import sys

from openhands.agent_server.config import ServerConfig, is_loopback

logger = logging.getLogger("openhands.agent_server")

UNPROTECTED_WARNING = """
******************************************************************************
 WARNING: the agent server listens on {host}, reachable from other machines,
 and OH_SESSION_API_KEYS is not set: ANYONE who can reach this port can run
 commands on this machine through the agent. Set OH_SESSION_API_KEYS=<secret>
 (clients send it as the X-Session-API-Key header), or bind 127.0.0.1.
******************************************************************************"""


SESSION_KEY_IN_QUERY = re.compile(r"(session_api_key=)[^&\s\"']*")


class RedactSessionKey(logging.Filter):
    """Blanks the `session_api_key` query parameter of logged URLs (uvicorn logs full paths)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(_redact(arg) for arg in record.args)
        record.msg = _redact(record.msg)
        return True


def _redact(value: object) -> object:
    if isinstance(value, str) and "session_api_key=" in value:
        return SESSION_KEY_IN_QUERY.sub(r"\1***", value)
    return value


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command-line options."""
    parser = argparse.ArgumentParser(
        prog="openhands-agent-server",
        description="Serve conversations over REST and WebSocket, with background goal loops. "
        "Configuration comes from OH_SESSION_API_KEYS, OH_CONVERSATIONS_PATH and "
        "OH_WORKSPACE_PATH (see docs/agent-server.md).",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="Interface to bind (default 127.0.0.1)."
    )
    parser.add_argument("--port", type=int, default=8000, help="Port to listen on (default 8000).")
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


def main(argv: list[str] | None = None) -> None:
    """Read the config, warn about an unprotected public bind, and run uvicorn."""
    args = parse_args(argv)
    # Third-party libraries (litellm) stay at WARNING; the server logs at the chosen level.
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("openhands").setLevel(args.log_level.upper())
    try:
        config = ServerConfig.from_env()
    except ValueError as exc:
        sys.exit(f"openhands-agent-server: {exc}")
    warning = unprotected_bind_warning(args.host, config)
    if warning is not None:
        logger.warning(warning)

    # Start-up builds many long-lived objects (pydantic schemas, routes): collecting garbage
    # meanwhile only costs time, and freezing them afterwards keeps later collections short.
    gc.disable()
    import uvicorn
    from openhands.agent_server.app import create_app
    from openhands.agent_server.ws_protocol import DenialAwareWebSocketProtocol

    app = create_app(config)
    gc.freeze()
    gc.enable()
    server_config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        ws=DenialAwareWebSocketProtocol,
        log_level=args.log_level,
        timeout_graceful_shutdown=10,
    )
    # The config has just set up uvicorn's loggers; the socket's key must not reach the log.
    for name in ("uvicorn.access", "uvicorn.error"):
        logging.getLogger(name).addFilter(RedactSessionKey())
    uvicorn.Server(server_config).run()


if __name__ == "__main__":
    main()
