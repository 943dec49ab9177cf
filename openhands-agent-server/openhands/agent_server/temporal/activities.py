"""The goal workflow's one activity: have the agent server perform a step, through the SDK's
remote client.

It runs as a local activity that lasts seconds: POST /goal/steps answers when the step ends or
after the call's `wait` (a few seconds) with no result; a step that goes on (an agent's run,
a judge call, a person's approval) is then signalled to the workflow by the server when it
ends. The server keeps each step by its id, so a retried call (a worker died, a lost signal)
attaches to the step under way or gets its result: a message is never sent twice, a verdict
never asked twice. A refusal (the run was stopped or replaced, the conversation deleted) is
final; a server that is down is retried.
"""

from __future__ import annotations

import os
import threading
import uuid

from openhands.agent_server.temporal.models import StepCall
from openhands.sdk.conversation.errors import ConversationAlreadyRunningError
from openhands.sdk.conversation.remote.client import RemoteClient
from openhands.sdk.conversation.remote.errors import (
    RemoteAuthenticationError,
    RemoteConversationNotFoundError,
    RemoteRequestError,
)
from openhands.sdk.wire import GoalStepAnswer, GoalStepRequest
from pydantic import SecretStr
from temporalio import activity
from temporalio.exceptions import ApplicationError

CALL_SLACK_SECONDS = 20.0
"""How much longer than its `wait` one call may take (a busy server, a slow record)."""

_clients: dict[str, RemoteClient] = {}
_clients_lock = threading.Lock()


def _client(url: str, wait: float) -> RemoteClient:
    """One remote client (one connection pool) per agent server, shared by the worker."""
    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            key = os.environ.get("OH_AGENT_SERVER_KEY")
            secret = SecretStr(key) if key else None
            client = RemoteClient(url, secret, timeout=wait + CALL_SLACK_SECONDS)
            _clients[url] = client
        return client


@activity.defn
def perform_step(call: StepCall) -> GoalStepAnswer:
    """Perform one step of the goal on its agent server (or attach to it): its result, or
    none yet (the server signals it when the step ends)."""
    request = GoalStepRequest(
        run=call.run, step_id=call.step_id, records=call.records, step=call.step, wait=call.wait
    )
    conversation_id = uuid.UUID(call.server.conversation_id)
    try:
        return _client(call.server.url, call.wait).perform_goal_step(conversation_id, request)
    except (
        ConversationAlreadyRunningError,
        RemoteConversationNotFoundError,
        RemoteRequestError,
        RemoteAuthenticationError,
    ) as exc:
        # The server refused this run's step: retrying cannot change its answer.
        raise ApplicationError(str(exc), type=type(exc).__name__, non_retryable=True) from exc


ACTIVITIES = [perform_step]
