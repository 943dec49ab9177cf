"""The goal workflow's one activity: have the agent server perform a step, through the SDK's
remote client.

It runs as a local activity that lasts seconds: POST /goal/steps answers when the step ends or
after the call's `wait` (a few seconds) with no result; a step that goes on (an agent's run,
a judge call, a person's approval) is then signalled to the workflow by the server when it
ends. The server keeps each step by its id, so a retried call (a worker died, a lost signal)
attaches to the step under way or gets its result: a message is never sent twice, a verdict
never asked twice. A refusal (the run was stopped or replaced, the conversation deleted) is
final; a server that is down is retried.

A workflow's input names the agent server by URL, and anyone who can start a workflow in the
namespace chooses it. The worker therefore calls only the servers it was configured with
(`AgentServers`: `--server` / `OH_AGENT_SERVERS`); any other URL is refused before a request
is made, so the session key (`OH_AGENT_SERVER_KEY`) never leaves for a server it is not for.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterable
from urllib.parse import urlsplit

from openhands.agent_server.temporal.models import StepCall
from openhands.sdk.conversation.errors import ConversationAlreadyRunningError
from openhands.sdk.errors import InvalidSettingError
from openhands.sdk.remote.client import RemoteClient
from openhands.sdk.remote.errors import (
    RemoteAuthenticationError,
    RemoteConversationNotFoundError,
    RemoteRequestError,
)
from openhands.sdk.wire import GoalStepAnswer, GoalStepRequest
from pydantic import SecretStr
from temporalio import activity
from temporalio.exceptions import ApplicationError

logger = logging.getLogger(__name__)

MAX_STEP_WAIT_SECONDS = 10.0
"""The longest `wait` a step call carries (`OH_TEMPORAL_STEP_WAIT_SECONDS` is at most this)."""

CALL_SLACK_SECONDS = 20.0
"""How much longer than its `wait` one call may take (a busy server, a slow record)."""

SERVERS_ENV = "OH_AGENT_SERVERS"
"""The agent servers a worker may call (comma-separated URLs)."""

NOT_ALLOWED = "AgentServerNotAllowed"
"""The `type` of the error a workflow naming another server gets."""

_DEFAULT_PORTS = {"http": 80, "https": 443}


def server_key(url: str) -> tuple[str, str, int, str]:
    """`url` as a destination: scheme, host (lowercase), port (the default made explicit),
    path without a trailing slash. Raises ValueError for what is not an http(s) URL."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"{url!r} is not an http:// or https:// URL with a host")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError(f"{url!r} must be a plain URL (no user, query or fragment)")
    port = parts.port or _DEFAULT_PORTS[scheme]
    return scheme, parts.hostname.lower(), port, parts.path.rstrip("/")


class AgentServers:
    """The agent servers one worker may call, and one remote client (connection pool) each."""

    def __init__(self, urls: Iterable[str], api_key: str | None) -> None:
        """`urls` is the allow-list (at least one); `api_key` the servers' session key.

        Raises `InvalidSettingError` naming `OH_AGENT_SERVERS` for an empty list or a bad URL.
        """
        self._allowed: dict[tuple[str, str, int, str], str] = {}
        for url in urls:
            try:
                self._allowed[server_key(url)] = url.strip().rstrip("/")
            except ValueError as exc:
                raise InvalidSettingError(f"{SERVERS_ENV} / --server: {exc}") from None
        if not self._allowed:
            raise InvalidSettingError(
                f"name the agent servers this worker may call: --server URL (repeatable) or "
                f"{SERVERS_ENV}=http://host:port,...; a workflow naming any other is refused"
            )
        self._key = SecretStr(api_key) if api_key else None
        self._clients: dict[tuple[str, str, int, str], RemoteClient] = {}
        self._lock = threading.Lock()

    @property
    def urls(self) -> list[str]:
        """The allowed servers, as configured."""
        return list(self._allowed.values())

    def allows(self, url: str) -> bool:
        """Whether `url` is one of the allowed servers."""
        try:
            return server_key(url) in self._allowed
        except ValueError:
            return False

    def client(self, url: str) -> RemoteClient:
        """The client of an allowed server; a non-retryable `ApplicationError` for any other
        (nothing is sent to it)."""
        try:
            key = server_key(url)
        except ValueError:
            key = None
        if key is None or key not in self._allowed:
            logger.warning(
                "Refused a goal step for agent server %r: not in this worker's %s", url, SERVERS_ENV
            )
            raise ApplicationError(
                f"agent server {url!r} is not one this worker may call (its {SERVERS_ENV}: "
                f"{', '.join(self.urls)}); start the goal on a configured server, or add it "
                "to the worker's list",
                type=NOT_ALLOWED,
                non_retryable=True,
            )
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                timeout = MAX_STEP_WAIT_SECONDS + CALL_SLACK_SECONDS
                client = RemoteClient(self._allowed[key], self._key, timeout=timeout)
                self._clients[key] = client
            return client


class StepActivities:
    """The activities of one worker, bound to the servers it may call."""

    def __init__(self, servers: AgentServers) -> None:
        self._servers = servers

    @activity.defn(name="perform_step")
    def perform_step(self, call: StepCall) -> GoalStepAnswer:
        """Perform one step of the goal on its agent server (or attach to it): its result, or
        none yet (the server signals it when the step ends)."""
        client = self._servers.client(call.server.url)
        request = GoalStepRequest(
            run=call.run, step_id=call.step_id, records=call.records, step=call.step, wait=call.wait
        )
        conversation_id = uuid.UUID(call.server.conversation_id)
        try:
            return client.perform_goal_step(conversation_id, request)
        except (
            ConversationAlreadyRunningError,
            RemoteConversationNotFoundError,
            RemoteRequestError,
            RemoteAuthenticationError,
        ) as exc:
            # The server refused this run's step: retrying cannot change its answer.
            raise ApplicationError(str(exc), type=type(exc).__name__, non_retryable=True) from exc
