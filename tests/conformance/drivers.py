"""The three goal drivers behind one test interface, and scripted LLM replies a test can hold.

- `LocalDriver`: the SDK's `run_goal` on a persisted `LocalConversation` in this process (a
  thread), or, for a goal that `restart()` must kill -9, in a child process.
- `ServerDriver`: an agent server subprocess with the built-in driver, over REST.
- The same with `OH_GOAL_BACKEND=temporal`, a real `temporal server start-dev` and a worker.

Every method does what a user of that driver would do (POST /goal/stop on a server, a
`GoalStop` with `run_goal`, ...). Statuses are read as recorded in the conversation's log.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
from agent_server.harness import ServerProcess, llm_spec, wait_until
from openhands.sdk import LLM, Agent, LocalConversation, Tool
from openhands.sdk.conversation.checkpointing import CHECKPOINT_KEY
from openhands.sdk.conversation.goal import (
    GOAL_STATE_KEY,
    GoalLimitsChange,
    GoalOutcome,
    GoalRequest,
    GoalStop,
    last_goal_status,
    resume_goal,
    run_goal,
)
from openhands.sdk.event import ConversationStateUpdateEvent
from openhands.sdk.hooks import HookConfig
from openhands.sdk.security import AlwaysConfirm
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from waits import EVENT_WAIT

HOLD_LIMIT = 120.0
"""Seconds a held reply waits for its release at most (a failing test never hangs)."""

WAIT = EVENT_WAIT
"""Seconds a test waits for a goal event (generous: other work shares the two cores)."""

CHILD = Path(__file__).with_name("run_goal_child.py")


# -- scripted replies ----------------------------------------------------------------------


class Held:
    """A reply the fake LLM gives only once the test releases it; `asked` is set when the
    request arrives, so a test acts while the call is under way."""

    def __init__(self, reply: FakeReply) -> None:
        self.reply = reply
        self.asked = threading.Event()
        self.released = threading.Event()

    def wait_asked(self) -> None:
        """Block until the LLM call that gets this reply is under way."""
        assert self.asked.wait(WAIT), "the held LLM call never came"

    def release(self) -> None:
        """Let the call answer."""
        self.released.set()


Reply = FakeReply | Held


def script(fake: FakeOpenAIServer, model: str, replies: Iterable[Reply]) -> list[Held]:
    """Answer `model`'s calls with `replies` in order; the held ones wait for their release."""
    queue: deque[Reply] = deque(replies)
    held = [reply for reply in queue if isinstance(reply, Held)]
    lock = threading.Lock()

    def respond(_: dict[str, Any]) -> FakeReply:
        with lock:
            item = queue.popleft() if queue else None
        if item is None:
            return FakeReply.error(400, f"no scripted reply left for {model}")
        if isinstance(item, Held):
            item.asked.set()
            item.released.wait(HOLD_LIMIT)
            return item.reply
        return item

    fake.set_responder(model, respond)
    return held


def judge_spec(fake: FakeOpenAIServer, model: str) -> dict[str, Any]:
    """A judge LLM for the goal request, counted under `goal-judge`."""
    return llm_spec(fake, model, usage_id="goal-judge")


# -- the interface -------------------------------------------------------------------------


@dataclass
class Conversation:
    """A conversation under test: its id and its agent's working folder."""

    id: str
    workdir: Path


@dataclass
class Setup:
    """How a conversation is made: its agent's model, tools, approval policy, hooks, price."""

    agent_model: str
    tools: tuple[str, ...] = ()
    always_confirm: bool = False
    hooks: dict[str, Any] | None = None
    cost_per_token: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class GoalDriverHarness(Protocol):
    """What a scenario does with a goal, whichever driver runs it."""

    name: str

    def create(self, setup: Setup) -> Conversation: ...
    def message_and_run(self, conversation: Conversation, text: str) -> None: ...
    def start(self, conversation: Conversation, goal: dict[str, Any]) -> None: ...
    def start_killable(self, conversation: Conversation, goal: dict[str, Any]) -> None: ...
    def resume(self, conversation: Conversation, limits: dict[str, Any] | None = None) -> None: ...
    def stop(self, conversation: Conversation) -> None: ...
    def pause(self, conversation: Conversation) -> None: ...
    def send(self, conversation: Conversation, text: str) -> None: ...
    def respond(self, conversation: Conversation, *, accept: bool) -> None: ...
    def goal(self, conversation: Conversation) -> dict[str, Any] | None: ...
    def statuses(self, conversation: Conversation) -> list[dict[str, Any]]: ...
    def kinds(self, conversation: Conversation) -> list[str]: ...
    def checkpoints(self, conversation: Conversation) -> list[dict[str, Any]]: ...
    def execution_status(self, conversation: Conversation) -> str: ...
    def restart(self) -> None: ...
    def close(self) -> None: ...


def wait_end(driver: GoalDriverHarness, conversation: Conversation) -> dict[str, Any]:
    """The goal's status once it is no longer active (and the agent no longer runs)."""

    def ended() -> dict[str, Any] | None:
        status = driver.goal(conversation)
        if status is None or status["active"]:
            return None
        return status if driver.execution_status(conversation) != "running" else None

    return wait_until(ended, WAIT, what=f"the goal to end ({driver.name})")


def wait_phase(driver: GoalDriverHarness, conversation: Conversation, phase: str) -> None:
    """Wait until the goal's recorded status has `phase`."""

    def reached() -> bool:
        status = driver.goal(conversation)
        return bool(status and status["active"] and status["phase"] == phase)

    wait_until(reached, WAIT, what=f"the goal phase {phase} ({driver.name})")


def phases(statuses: list[dict[str, Any]]) -> list[str]:
    """The recorded statuses as one word each: the phase while active, else how it ended."""
    return [s["phase"] if s["active"] else f"{s['status']}:{s.get('reason')}" for s in statuses]


# -- run_goal ------------------------------------------------------------------------------


class LocalDriver:
    """`run_goal` / `resume_goal` in this process, on conversations persisted under `root`."""

    name = "run_goal"

    def __init__(self, root: Path, fake: FakeOpenAIServer) -> None:
        self._root = root
        self._fake = fake
        self._store = root / "conversations"
        self._open: dict[str, LocalConversation] = {}
        self._agents: dict[str, Agent] = {}
        self._workdirs: dict[str, Path] = {}
        self._judges: dict[str, LLM] = {}
        self._threads: dict[str, threading.Thread] = {}
        self._stops: dict[str, GoalStop] = {}
        self._child: tuple[str, subprocess.Popen[bytes]] | None = None

    def create(self, setup: Setup) -> Conversation:
        extra: dict[str, Any] = {}
        if setup.cost_per_token is not None:
            extra["input_cost_per_token"] = setup.cost_per_token
        llm = LLM.model_validate(llm_spec(self._fake, setup.agent_model, **extra))
        agent = Agent(llm=llm, tools=[Tool(name=name) for name in setup.tools])
        workdir = self._root / "work" / uuid.uuid4().hex[:8]
        workdir.mkdir(parents=True)
        conversation = LocalConversation(
            agent,
            workspace=str(workdir),
            persistence_dir=str(self._store),
            hook_config=HookConfig.model_validate(setup.hooks) if setup.hooks else None,
        )
        if setup.always_confirm:
            conversation.set_confirmation_policy(AlwaysConfirm())
        cid = str(conversation.id)
        self._open[cid] = conversation
        self._agents[cid] = agent
        self._workdirs[cid] = workdir
        return Conversation(cid, workdir)

    def message_and_run(self, conversation: Conversation, text: str) -> None:
        local = self._open[conversation.id]
        local.send_message(text)
        local.run()

    def start(self, conversation: Conversation, goal: dict[str, Any]) -> None:
        local = self._open[conversation.id]
        request = GoalRequest.model_validate({k: v for k, v in goal.items() if k != "judge_llm"})
        judge = LLM.model_validate(goal["judge_llm"])
        self._judges[conversation.id] = judge
        stop = self._stops[conversation.id] = GoalStop()
        self._spawn(conversation, lambda: run_goal(local, request, judge, stop=stop))

    def start_killable(self, conversation: Conversation, goal: dict[str, Any]) -> None:
        """Run the goal in a child process (so `restart()` can kill -9 it)."""
        local = self._open.pop(conversation.id)
        self._judges[conversation.id] = LLM.model_validate(goal["judge_llm"])
        local.close()  # the child opens the conversation from disk
        agent = self._agents[conversation.id]
        spec = {
            "store": str(self._store),
            "id": conversation.id,
            "workdir": str(conversation.workdir),
            "agent": agent.model_dump(mode="json", context={"expose_secrets": True}),
            "goal": goal,
        }
        process = subprocess.Popen(
            [sys.executable, str(CHILD), json.dumps(spec)],
            env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        )
        self._child = (conversation.id, process)

    def resume(self, conversation: Conversation, limits: dict[str, Any] | None = None) -> None:
        self._join(conversation)
        local = self._open[conversation.id]
        judge = self._judges[conversation.id]
        stop = self._stops[conversation.id] = GoalStop()
        change = GoalLimitsChange.model_validate(limits) if limits else None
        self._spawn(conversation, lambda: resume_goal(local, judge, stop=stop, limits=change))

    def stop(self, conversation: Conversation) -> None:
        self._stops[conversation.id].request()

    def pause(self, conversation: Conversation) -> None:
        self._open[conversation.id].pause()

    def send(self, conversation: Conversation, text: str) -> None:
        self._open[conversation.id].send_message(text)

    def respond(self, conversation: Conversation, *, accept: bool) -> None:
        local = self._open[conversation.id]
        if accept:
            local.approve_pending_actions()
        else:
            local.reject_pending_actions("not that")

    def goal(self, conversation: Conversation) -> dict[str, Any] | None:
        thread = self._threads.get(conversation.id)
        status = last_goal_status(self._open[conversation.id].state.events)
        if status is None:
            return None
        value = status.model_dump(mode="json")
        if thread is not None and thread.is_alive() and not value["active"]:
            value["active"] = True  # recorded, but run_goal has not returned yet
        return value

    def statuses(self, conversation: Conversation) -> list[dict[str, Any]]:
        return [
            event.value
            for event in self._open[conversation.id].state.events
            if isinstance(event, ConversationStateUpdateEvent) and event.key == GOAL_STATE_KEY
        ]

    def kinds(self, conversation: Conversation) -> list[str]:
        return [event.kind for event in self._open[conversation.id].state.events]

    def checkpoints(self, conversation: Conversation) -> list[dict[str, Any]]:
        return [
            event.value
            for event in self._open[conversation.id].state.events
            if isinstance(event, ConversationStateUpdateEvent) and event.key == CHECKPOINT_KEY
        ]

    def execution_status(self, conversation: Conversation) -> str:
        return self._open[conversation.id].state.execution_status.value

    def restart(self) -> None:
        """kill -9 the child process driving a goal, then open its conversation here."""
        assert self._child is not None, "restart() needs a goal started with start_killable"
        cid, process = self._child
        process.send_signal(signal.SIGKILL)
        process.wait(30)
        self._child = None
        agent = self._agents[cid]
        self._open[cid] = LocalConversation(
            agent,
            workspace=str(self._workdirs[cid]),
            persistence_dir=str(self._store),
            conversation_id=uuid.UUID(cid),
        )

    def close(self) -> None:
        for stop in self._stops.values():
            stop.request()
        for thread in self._threads.values():
            thread.join(WAIT)
        if self._child is not None:
            self._child[1].kill()
        for conversation in self._open.values():
            conversation.close()

    def _spawn(self, conversation: Conversation, work: Any) -> None:
        outcome: list[GoalOutcome] = []
        thread = threading.Thread(target=lambda: outcome.append(work()), daemon=True)
        self._threads[conversation.id] = thread
        thread.start()

    def _join(self, conversation: Conversation) -> None:
        thread = self._threads.get(conversation.id)
        if thread is not None:
            thread.join(WAIT)
            assert not thread.is_alive(), "run_goal did not return"


# -- a server ------------------------------------------------------------------------------


class ServerDriver:
    """An agent server subprocess (built-in driver, or `env` choosing Temporal), over REST."""

    def __init__(
        self, name: str, root: Path, fake: FakeOpenAIServer, env: dict[str, str] | None = None
    ) -> None:
        self.name = name
        self._root = root
        self._fake = fake
        self._env = env or {}
        self.server = ServerProcess(root / "conversations", env=self._env).start()

    def _http(self) -> httpx.Client:
        return self.server.client()

    def _path(self, conversation: Conversation, tail: str = "") -> str:
        return f"/api/conversations/{conversation.id}{tail}"

    def _post(self, path: str, body: Any = None) -> httpx.Response:
        with self._http() as http:
            response = http.post(path, json=body, timeout=WAIT)
        assert response.status_code == 200, f"{path}: {response.status_code} {response.text}"
        return response

    def create(self, setup: Setup) -> Conversation:
        extra: dict[str, Any] = {}
        if setup.cost_per_token is not None:
            extra["input_cost_per_token"] = setup.cost_per_token
        agent = {
            "kind": "Agent",
            "llm": llm_spec(self._fake, setup.agent_model, **extra),
            "tools": [{"name": name} for name in setup.tools],
        }
        workdir = self._root / "work" / uuid.uuid4().hex[:8]
        body: dict[str, Any] = {"agent": agent, "workspace": {"working_dir": str(workdir)}}
        if setup.always_confirm:
            body["confirmation_policy"] = {"kind": "AlwaysConfirm"}
        if setup.hooks:
            body["hook_config"] = setup.hooks
        with self._http() as http:
            created = http.post("/api/conversations", json=body)
        assert created.status_code == 201, created.text
        return Conversation(created.json()["id"], workdir)

    def message_and_run(self, conversation: Conversation, text: str) -> None:
        message = {"role": "user", "content": [{"type": "text", "text": text}], "run": True}
        self._post(self._path(conversation, "/events"), message)
        # One read per check: two reads could see "idle" (not started) then "running".
        wait_until(
            lambda: self.execution_status(conversation) not in ("running", "idle"),
            WAIT,
            what="the run to end",
        )

    def start(self, conversation: Conversation, goal: dict[str, Any]) -> None:
        self._post(self._path(conversation, "/goal"), goal)

    def start_killable(self, conversation: Conversation, goal: dict[str, Any]) -> None:
        self.start(conversation, goal)

    def resume(self, conversation: Conversation, limits: dict[str, Any] | None = None) -> None:
        self._post(self._path(conversation, "/goal/resume"), limits)

    def stop(self, conversation: Conversation) -> None:
        self._post(self._path(conversation, "/goal/stop"))

    def pause(self, conversation: Conversation) -> None:
        self._post(self._path(conversation, "/pause"))

    def send(self, conversation: Conversation, text: str) -> None:
        self._post(
            self._path(conversation, "/events"),
            {"role": "user", "content": [{"type": "text", "text": text}]},
        )

    def respond(self, conversation: Conversation, *, accept: bool) -> None:
        body: dict[str, Any] = {"accept": accept}
        if not accept:
            body["reason"] = "not that"
        self._post(self._path(conversation, "/events/respond_to_confirmation"), body)

    def goal(self, conversation: Conversation) -> dict[str, Any] | None:
        with self._http() as http:
            return http.get(self._path(conversation, "/goal")).json()

    def _events(self, conversation: Conversation, kind: str | None = None) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        page: str | None = None
        with self._http() as http:
            while True:
                params: dict[str, Any] = {"limit": 100}
                if kind is not None:
                    params["kind"] = kind
                if page:
                    params["page_id"] = page
                body = http.get(self._path(conversation, "/events/search"), params=params).json()
                items.extend(body["items"])
                page = body.get("next_page_id")
                if not page:
                    return items

    def statuses(self, conversation: Conversation) -> list[dict[str, Any]]:
        return [
            event["value"]
            for event in self._events(conversation, "ConversationStateUpdateEvent")
            if event.get("key") == GOAL_STATE_KEY
        ]

    def kinds(self, conversation: Conversation) -> list[str]:
        return [event["kind"] for event in self._events(conversation)]

    def checkpoints(self, conversation: Conversation) -> list[dict[str, Any]]:
        return [
            event["value"]
            for event in self._events(conversation, "ConversationStateUpdateEvent")
            if event.get("key") == CHECKPOINT_KEY
        ]

    def execution_status(self, conversation: Conversation) -> str:
        with self._http() as http:
            return http.get(self._path(conversation)).json()["execution_status"]

    def restart(self) -> None:
        """kill -9 the server and start a new one on the same folder (and port: the goal
        workers may call only the servers they were given)."""
        self.server.kill()
        self.server.start()

    def close(self) -> None:
        self.server.stop()
