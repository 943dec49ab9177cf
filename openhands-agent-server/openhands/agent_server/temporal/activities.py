"""The goal workflow's I/O, run by workers: each activity talks to one agent server over HTTP.

Activities are idempotent, because Temporal retries them (after a timeout, or when a worker
dies): a retried round never sends its message twice and re-attaches to a run already going
or already ended; recording a status twice appends it once. Keys come from the worker's
environment: `OH_AGENT_SERVER_KEY` (the servers' session key) and `OH_JUDGE_API_KEY` (else
`LLM_API_KEY`) for the judge.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

import httpx
from openhands.agent_server.temporal.models import (
    JudgeRequest,
    JudgeResult,
    RoundEnd,
    RoundRun,
    ServerRef,
    StatusRecord,
    VerifyRequest,
)
from openhands.sdk.conversation.goal.judge import ask_judge
from openhands.sdk.conversation.goal.models import VerifyResult
from openhands.sdk.conversation.goal.transcript import TranscriptWindow
from openhands.sdk.event import Event
from openhands.sdk.llm import LLM
from openhands.sdk.wire import BashOutput
from temporalio import activity

T = TypeVar("T")

POLL_SECONDS = 0.3
"""How often a round polls its run's status (each poll heartbeats)."""

TERMINAL = {"finished", "paused", "error", "stuck", "waiting_for_confirmation"}
PAGE = 100


HEARTBEAT_EVERY = 5.0
"""Seconds between heartbeats while an activity waits on one long call (judge, verify)."""


def _with_heartbeats(fn: Callable[..., T], *args: Any) -> T:
    """Run `fn` in a thread and heartbeat until it returns, so a dead worker's call is
    retried elsewhere after the heartbeat timeout rather than the whole call's timeout."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(fn, *args)
        while True:
            try:
                return future.result(timeout=HEARTBEAT_EVERY)
            except FutureTimeout:
                activity.heartbeat()


def _client(server: ServerRef) -> httpx.Client:
    key = os.environ.get("OH_AGENT_SERVER_KEY")
    headers = {"X-Session-API-Key": key} if key else {}
    return httpx.Client(base_url=server.url, headers=headers, timeout=60)


def _conv(server: ServerRef) -> str:
    return f"/api/conversations/{server.conversation_id}"


def _events(http: httpx.Client, server: ServerRef, **params: Any) -> list[dict[str, Any]]:
    """Every event of the conversation (paged), oldest first, or filtered by `params`."""
    items: list[dict[str, Any]] = []
    page: str | None = None
    while True:
        query: dict[str, Any] = {"limit": PAGE, **params}
        if page:
            query["page_id"] = page
        answer = http.get(f"{_conv(server)}/events/search", params=query)
        answer.raise_for_status()
        body = answer.json()
        items.extend(body["items"])
        page = body.get("next_page_id")
        if not page:
            return items


def _agent_cost(http: httpx.Client, server: ServerRef, usage_id: str) -> float:
    info = http.get(_conv(server))
    info.raise_for_status()
    metrics = info.json().get("metrics", {}).get(usage_id) or {}
    return float(metrics.get("accumulated_cost", 0.0))


def _text(event: dict[str, Any]) -> str:
    message = event.get("llm_message") or {}
    return "".join(part.get("text", "") for part in message.get("content", []))


def _after_message(events: list[dict[str, Any]], message: str) -> list[dict[str, Any]] | None:
    """The events after the newest user message if it is `message` (it was sent), else None."""
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if event.get("kind") == "MessageEvent" and event.get("source") == "user":
            return events[index + 1 :] if _text(event) == message else None
    return None


def _run_end(events: list[dict[str, Any]]) -> RoundEnd | None:
    """How a run ended, from the events after its message (None: not ended yet)."""
    status: str | None = None
    error: tuple[str, str] | None = None
    for event in events:
        if event.get("kind") == "ConversationErrorEvent":
            error = (event.get("code", "Error"), event.get("detail", ""))
        if (
            event.get("kind") == "ConversationStateUpdateEvent"
            and event.get("key") == "execution_status"
        ):
            status = event.get("value")
    if status not in TERMINAL:
        return None
    if status == "error" and error is not None:
        return RoundEnd(status=status, error=f"{error[0]}: {error[1]}", code=error[0])
    return RoundEnd(status=status)


@activity.defn
def run_round(request: RoundRun) -> RoundEnd:
    """Send the round's message unless it was sent, run the agent unless that run already
    ended, and wait (heartbeating) until the run ends."""
    server = request.server
    with _client(server) as http:
        cost_before = _agent_cost(http, server, request.agent_usage_id)
        after = _after_message(_events(http, server), request.message)
        ended = None if after is None else _run_end(after)
        running = after is not None and any(
            e.get("kind") == "ConversationStateUpdateEvent" and e.get("value") == "running"
            for e in after
        )
        if ended is None and not running:
            body = {"message": request.message if after is None else None}
            started = http.post(f"{_conv(server)}/goal/run", json=body)
            if started.status_code != 200:
                started.raise_for_status()
        while ended is None:
            activity.heartbeat()
            time.sleep(POLL_SECONDS)
            ended = _run_end(_after_message(_events(http, server), request.message) or [])
        ended.agent_cost = max(0.0, _agent_cost(http, server, request.agent_usage_id) - cost_before)
        return ended


@activity.defn
def run_verify(request: VerifyRequest) -> dict[str, Any]:
    """Run the verify command in the conversation's workspace on its server."""

    def call() -> dict[str, Any]:
        with _client(request.server) as http:
            answer = http.post(
                "/api/bash/execute_bash_command",
                json={
                    "command": request.command,
                    "cwd": request.working_dir,
                    "timeout": request.timeout,
                },
                timeout=request.timeout + 60,
            )
            answer.raise_for_status()
            return answer.json()

    # The server answers a BashOutput (stdout with stderr interleaved, as verify reads it).
    done = BashOutput.model_validate(_with_heartbeats(call)).to_result(request.command)
    result = VerifyResult(
        command=request.command,
        exit_code=done.exit_code,
        output_tail=(done.output + done.stderr)[-4000:],
        timed_out=done.timed_out,
    )
    return result.model_dump(mode="json")


@activity.defn
def judge_round(request: JudgeRequest) -> JudgeResult:
    """Ask the judge (from this worker, with its own key) about the whole conversation."""
    with _client(request.server) as http:
        events = [Event.model_validate(e) for e in _events(http, request.server)]
    window = (
        TranscriptWindow(request.transcript_chars)
        if request.transcript_chars
        else TranscriptWindow()
    )
    transcript = window.update(events)
    key = os.environ.get("OH_JUDGE_API_KEY") or os.environ.get("LLM_API_KEY")
    judge = LLM.model_validate({**request.judge, **({"api_key": key} if key else {})})
    verify = VerifyResult.model_validate(request.verify) if request.verify else None
    answer = _with_heartbeats(ask_judge, judge, request.objective, transcript, verify)
    return JudgeResult(
        verdict=answer.verdict.model_dump(mode="json"), cost=answer.cost, error=answer.error
    )


@activity.defn
def record_status(request: StatusRecord) -> None:
    """Append the goal status on the agent server (once: an equal newest status is kept)."""
    with _client(request.server) as http:
        answer = http.post(f"{_conv(request.server)}/goal/status", json=request.status)
        answer.raise_for_status()


ACTIVITIES = [run_round, run_verify, judge_round, record_status]
