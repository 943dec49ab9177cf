"""Flows of the REFERENCE SDK's own clients, run with the reference's Python (never ours).

`python drive.py FLOW CONFIG_JSON` runs one flow against the agent server at `host` and
prints its result as one JSON line. It imports only the reference's packages and the
standard library: this is how a user of the reference SDK drives a server.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from openhands.sdk import LLM, Conversation, Event
from openhands.sdk.event import ConversationStateUpdateEvent
from openhands.sdk.security.confirmation_policy import AlwaysConfirm
from openhands.sdk.workspace import RemoteWorkspace
from openhands.tools.preset.default import get_default_agent
from pydantic import SecretStr

WAIT = 120.0


class Seen:
    """Events a conversation's callback received over the socket, waitable."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.changed = threading.Condition()

    def __call__(self, event: Event) -> None:
        with self.changed:
            self.events.append(event)
            self.changed.notify_all()

    def wait_for(self, test: Any, what: str) -> Event:
        deadline = time.monotonic() + WAIT
        with self.changed:
            while True:
                for event in self.events:
                    if test(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {what} after {WAIT} s: {self.kinds()}")
                self.changed.wait(left)

    def kinds(self) -> list[str]:
        return [type(e).__name__ for e in self.events]


def status_event(status: str) -> Any:
    return lambda e: (
        isinstance(e, ConversationStateUpdateEvent)
        and e.key == "execution_status"
        and e.value == status
    )


def setup(config: dict[str, Any]) -> tuple[RemoteWorkspace, Any]:
    workspace = RemoteWorkspace(
        host=config["host"], api_key=config["key"], working_dir=config["working_dir"]
    )
    llm = LLM(
        model=config["model"],
        base_url=config["base_url"],
        api_key=SecretStr("fake-key"),
        usage_id="agent",
        num_retries=0,
    )
    return workspace, get_default_agent(llm=llm, cli_mode=True)


def conversation(config: dict[str, Any], seen: Seen) -> Any:
    workspace, agent = setup(config)
    return Conversation(agent=agent, workspace=workspace, callbacks=[seen], visualizer=None)


def rest_events(config: dict[str, Any], conversation_id: Any) -> list[dict[str, Any]]:
    response = httpx.get(
        f"{config['host']}/api/conversations/{conversation_id}/events/search",
        params={"limit": 100},
        headers={"X-Session-API-Key": config["key"]},
    )
    response.raise_for_status()
    return response.json()["items"]


def agent_texts(events: Any) -> list[str]:
    texts = []
    for event in events:
        message = getattr(event, "llm_message", None)
        if message is not None and message.role == "assistant":
            texts.extend(part.text for part in message.content if hasattr(part, "text"))
    return texts


def flow_execute(config: dict[str, Any]) -> dict[str, Any]:
    workspace, _ = setup(config)
    result = workspace.execute_command("echo hi")
    return {"exit_code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr}


def flow_run(config: dict[str, Any]) -> dict[str, Any]:
    seen = Seen()
    conv = conversation(config, seen)
    conv.send_message("please say hi")
    conv.run()
    status = conv.state.execution_status.value
    seen.wait_for(status_event("finished"), "finished status on the socket")
    result = {
        "status": status,
        "local_kinds": [type(e).__name__ for e in conv.state.events],
        "socket_kinds": seen.kinds(),
        "rest_kinds": [e["kind"] for e in rest_events(config, conv.id)],
        "agent_texts": agent_texts(conv.state.events),
        "observations": [
            e.observation.text for e in conv.state.events if type(e).__name__ == "ObservationEvent"
        ],
    }
    conv.close()
    return result


def flow_pause(config: dict[str, Any]) -> dict[str, Any]:
    seen = Seen()
    conv = conversation(config, seen)
    conv.send_message("keep working until I pause you")
    conv.run(blocking=False)
    seen.wait_for(lambda e: type(e).__name__ == "ObservationEvent", "a tool result")
    conv.pause()
    seen.wait_for(status_event("paused"), "paused status")
    paused = conv.state.execution_status.value
    conv.send_message("now stop and say hi")
    conv.run()
    result = {"paused": paused, "status": conv.state.execution_status.value}
    conv.close()
    return result


def flow_fork(config: dict[str, Any]) -> dict[str, Any]:
    seen = Seen()
    conv = conversation(config, seen)
    conv.send_message("please say hi")
    conv.run()
    before = len(rest_events(config, conv.id))
    fork = conv.fork(title="the fork")
    fork_texts = [
        part.text
        for e in fork.state.events
        if type(e).__name__ == "MessageEvent"
        for part in e.llm_message.content
    ]
    fork.send_message("and once more")
    fork.run()
    result = {
        "different_id": fork.id != conv.id,
        "fork_has_history": "please say hi" in fork_texts,
        "fork_status": fork.state.execution_status.value,
        "source_unchanged": len(rest_events(config, conv.id)) == before,
        "fork_longer": len(rest_events(config, fork.id)) > before,
    }
    # Closed at once: the reference client's close() may wait 5 s on an idle socket.
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda c: c.close(), (fork, conv)))
    return result


def flow_confirm(config: dict[str, Any]) -> dict[str, Any]:
    seen = Seen()
    conv = conversation(config, seen)
    conv.set_confirmation_policy(AlwaysConfirm())
    conv.send_message("please say hi")
    conv.run()
    waiting = conv.state.execution_status.value
    observations_while_waiting = [
        e for e in conv.state.events if type(e).__name__ == "ObservationEvent"
    ]
    conv.run()  # approves the waiting call, as in a local conversation
    result = {
        "waiting": waiting,
        "ran_before_approval": bool(observations_while_waiting),
        "status": conv.state.execution_status.value,
        "observations": [
            e.observation.text for e in conv.state.events if type(e).__name__ == "ObservationEvent"
        ],
    }
    conv.close()
    return result


def flow_goal(config: dict[str, Any]) -> dict[str, Any]:
    seen = Seen()
    conv = conversation(config, seen)
    answer = conv.workspace.client.post(
        f"/api/conversations/{conv.id}/goal",
        json={"objective": "say hi in the terminal", "max_iterations": 2},
    )
    answer.raise_for_status()
    done = seen.wait_for(
        lambda e: (
            isinstance(e, ConversationStateUpdateEvent)
            and e.key == "goal"
            and isinstance(e.value, dict)
            and e.value.get("active") is False
        ),
        "an inactive goal status",
    )
    result = {"goal": done.value.get("status"), "iteration": done.value.get("iteration")}
    conv.close()
    return result


def flow_settings(config: dict[str, Any]) -> dict[str, Any]:
    """Store an LLM and a secret through the settings API, then build the agent from
    `workspace.get_llm()` (which brings no key back) and run it."""
    workspace, _ = setup(config)
    stored = {
        "model": config["model"] + "-settings",
        "base_url": config["base_url"],
        "api_key": config["settings_key"],
    }
    patched = workspace.client.patch("/api/settings", json={"agent_settings_diff": {"llm": stored}})
    patched.raise_for_status()
    secret = workspace.client.put(
        "/api/settings/secrets", json={"name": "INTEROP_TOKEN", "value": "tok", "description": "d"}
    )
    secret.raise_for_status()
    llm = workspace.get_llm()
    seen = Seen()
    conv = Conversation(
        agent=get_default_agent(llm=llm, cli_mode=True),
        workspace=workspace,
        callbacks=[seen],
        visualizer=None,
    )
    conv.send_message("please say hi")
    conv.run()
    secrets = workspace.get_secrets()
    saved = workspace.client.post("/api/profiles/interop", json={"llm": stored})
    saved.raise_for_status()
    profile_llm = workspace.get_llm(profile_name="interop")
    result = {
        "profile_usage_id": profile_llm.usage_id,
        "profile_key_sent_back": profile_llm.api_key is not None,
        "key_sent_back": llm.api_key is not None and bool(llm.api_key.get_secret_value()),
        "model": llm.model,
        "status": conv.state.execution_status.value,
        "secrets": sorted(secrets),
        "lookup_url": secrets["INTEROP_TOKEN"].url if "INTEROP_TOKEN" in secrets else None,
    }
    conv.close()
    return result


if __name__ == "__main__":
    flow, raw = sys.argv[1], sys.argv[2]
    print(json.dumps(globals()[f"flow_{flow}"](json.loads(raw))))
