"""Flows of the REFERENCE SDK over the routes of its server's working surface, run with the
reference's Python (never ours): its `RemoteConversation` methods drive the server, and its
own request and answer models validate every answer (`model_validate` raises on a shape they
do not accept, which fails the flow).

`python surface.py FLOW CONFIG_JSON` runs one flow against the agent server at `host` and
prints its result as one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from openhands.agent_server.agent_profiles_router import (
    ActivateAgentProfileResponse,
    AgentProfileDetailResponse,
    AgentProfileMutationResponse,
)
from openhands.agent_server.llm_router import (
    ModelsResponse,
    ProvidersResponse,
    VerifiedModelsResponse,
)
from openhands.agent_server.mcp_router import MCPTestResponse
from openhands.agent_server.meta_profiles_router import (
    ActivateMetaProfileResponse,
    MetaProfileDetailResponse,
    MetaProfileListResponse,
    MetaProfileMutationResponse,
)
from openhands.agent_server.models import (
    AgentResponseResult,
    AskAgentResponse,
    ConversationInfo,
    ConversationRuntimeInfo,
    Success,
)
from openhands.agent_server.openai.models import OpenAIModelListResponse, OpenAIResponse
from openhands.agent_server.profiles_router import (
    ProfileMutationResponse,
    ValidateProfileResponse,
)
from openhands.agent_server.provider_connections_router import ProviderConnectionResponse
from openhands.agent_server.server_details_router import ServerInfo
from openhands.agent_server.workspaces_router import DeleteResponse, WorkspacesListResponse
from openhands.sdk import LLM, Conversation, Event
from openhands.sdk.profiles import AgentProfileDiagnostics, AgentProfileListResponse
from openhands.sdk.settings import SettingsSchema
from openhands.sdk.settings.api_models import SettingsResponse
from openhands.sdk.workspace import RemoteWorkspace
from openhands.tools.preset.default import get_default_agent
from pydantic import SecretStr, TypeAdapter

WAIT = 120.0
QUESTION = "interop question: what did you do?"


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


def checked(model: Any, response: httpx.Response) -> Any:
    """The answer validated by the reference's model (raises when it does not fit)."""
    response.raise_for_status()
    adapter = model if isinstance(model, TypeAdapter) else TypeAdapter(model)
    return adapter.validate_python(response.json())


def wait_status(client: httpx.Client, conversation_id: Any, *statuses: str) -> str:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        info = checked(ConversationInfo, client.get(f"/api/conversations/{conversation_id}"))
        if info.execution_status.value in statuses:
            return info.execution_status.value
        time.sleep(0.1)  # polling a server's status: there is no event to wait on here
    raise TimeoutError(f"conversation {conversation_id} not in {statuses} after {WAIT} s")


def flow_conversation(config: dict[str, Any]) -> dict[str, Any]:
    """Title, batch read, final response, runtime, ask, secrets, navigate, condense, the
    events batch and switching the LLM, through the reference's own client."""
    workspace, agent = setup(config)
    client = workspace.client
    conv = Conversation(agent=agent, workspace=workspace, visualizer=None)
    conv.send_message("please say hi")
    conv.run()
    cid = conv.id

    conv.set_title("Interop title")
    page = "<h1>written by the agent</h1>"
    with open(f"{config['working_dir']}/report.html", "w") as out:
        out.write(page)
    served = client.get(f"/api/conversations/{cid}/workspace/report.html")
    served.raise_for_status()
    batch = checked(
        list[ConversationInfo | None],
        client.get("/api/conversations", params={"ids": [str(cid), str(uuid.uuid4())]}),
    )
    final = checked(
        AgentResponseResult, client.get(f"/api/conversations/{cid}/agent_final_response")
    )
    runtime = checked(ConversationRuntimeInfo, client.get(f"/api/conversations/{cid}/runtime"))
    asked = checked(
        AskAgentResponse,
        client.post(f"/api/conversations/{cid}/ask_agent", json={"question": QUESTION}),
    )
    answer = conv.ask_agent(QUESTION)
    conv.update_secrets({"INTEROP_SECRET": "interop-value"})

    events = client.get(f"/api/conversations/{cid}/events/search", params={"limit": 100})
    items = events.json()["items"]
    ids = [e["id"] for e in items]
    first_message = next(e["id"] for e in items if e["kind"] == "MessageEvent")
    picked = checked(
        list[Event | None],
        client.request("GET", f"/api/conversations/{cid}/events", json=[ids[0], "nope"]),
    )
    conv.navigate_to(first_message)
    navigated = checked(
        ConversationInfo,
        client.post(f"/api/conversations/{cid}/navigate", json={"event_id": first_message}),
    )
    conv.condense()  # the reference's default agent has an LLMSummarizingCondenser
    plugin = f"{config['working_dir']}/plugins/notes"
    for folder in (f"{plugin}/.plugin", f"{plugin}/skills/notes"):
        os.makedirs(folder, exist_ok=True)
    with open(f"{plugin}/.plugin/plugin.json", "w") as out:
        json.dump({"name": "notes"}, out)
    with open(f"{plugin}/skills/notes/SKILL.md", "w") as out:
        out.write("---\nname: notes\ndescription: Take notes.\n---\nWrite them down.\n")
    conv.load_plugin(plugin)
    with_plugin = checked(ConversationInfo, client.get(f"/api/conversations/{cid}"))
    context = with_plugin.agent.agent_context
    skills = [skill.name for skill in context.skills] if context is not None else []

    other = LLM(
        model=config["model"] + "-switched",
        base_url=config["base_url"],
        api_key=SecretStr("fake-key"),
        usage_id="switched",
    )
    switched = checked(
        Success,
        client.post(
            f"/api/conversations/{cid}/switch_llm",
            json={"llm": other.model_dump(mode="json", context={"expose_secrets": True})},
        ),
    )
    after = checked(ConversationInfo, client.get(f"/api/conversations/{cid}"))

    plain = Conversation(
        agent=agent.model_copy(update={"condenser": None}), workspace=workspace, visualizer=None
    )
    refused = client.post(f"/api/conversations/{plain.id}/condense").status_code

    busy = Conversation(agent=agent, workspace=workspace, visualizer=None)
    busy.send_message("keep working until I interrupt you")
    busy.run(blocking=False)
    wait_status(client, busy.id, "running")
    busy.interrupt()
    interrupted = wait_status(client, busy.id, "paused")

    result = {
        "title": batch[0].title if batch[0] else None,
        "unknown": batch[1],
        "final": final.response,
        "runtime": runtime.runtime_status.value,
        "served": served.text == page,
        "asked": asked.response,
        "answer": answer,
        "picked": [type(e).__name__ if e else None for e in picked],
        "navigated": navigated.id == cid,
        "switched": switched.success,
        "plugin_skills": skills,
        "model": after.agent.llm.model,
        "condense_without_condenser": refused,
        "interrupted": interrupted,
    }
    # The reference client's close() waits up to 5 s for a message on an idle socket (its
    # reader checks for the stop only then): closed at once, they wait those 5 s once.
    with ThreadPoolExecutor(3) as pool:
        list(pool.map(lambda c: c.close(), (busy, plain, conv)))
    return result


def flow_settings(config: dict[str, Any]) -> dict[str, Any]:
    """The settings surface, every answer read with the reference's models."""
    workspace, _ = setup(config)
    client = workspace.client
    llm = {"model": config["model"], "base_url": config["base_url"], "api_key": "fake-key"}
    done: list[str] = []

    checked(ProvidersResponse, client.get("/api/llm/providers"))
    models = checked(ModelsResponse, client.get("/api/llm/models", params={"provider": "openai"}))
    checked(VerifiedModelsResponse, client.get("/api/llm/models/verified"))
    done.append("llm catalogue")

    connection = checked(
        ProviderConnectionResponse,
        client.post(
            "/api/llm/provider-connections",
            json={"display_name": "Interop", "provider": "openai", "api_key": "sk-interop"},
        ),
    )
    checked(list[ProviderConnectionResponse], client.get("/api/llm/provider-connections"))
    checked(
        ProviderConnectionResponse,
        client.patch(
            f"/api/llm/provider-connections/{connection.id}", json={"display_name": "Renamed"}
        ),
    )
    checked(
        ProviderConnectionResponse, client.delete(f"/api/llm/provider-connections/{connection.id}")
    )
    done.append("provider connections")

    tag = uuid.uuid4().hex[:8]  # the server is shared by the runs of both versions
    client.post(f"/api/profiles/a-{tag}", json={"llm": llm}).raise_for_status()
    renamed = checked(
        ProfileMutationResponse,
        client.post(f"/api/profiles/a-{tag}/rename", json={"new_name": f"b-{tag}"}),
    )
    valid = checked(
        ValidateProfileResponse, client.post(f"/api/profiles/b-{tag}/validate", json={"llm": llm})
    )
    done.append("profiles")

    checked(AgentProfileListResponse, client.get("/api/agent-profiles"))
    profile = {"llm_profile_ref": f"b-{tag}", "system_message_suffix": "Be brief."}
    checked(AgentProfileMutationResponse, client.post(f"/api/agent-profiles/p-{tag}", json=profile))
    checked(AgentProfileDetailResponse, client.get(f"/api/agent-profiles/p-{tag}"))
    diagnostics = checked(
        AgentProfileDiagnostics, client.post(f"/api/agent-profiles/p-{tag}/materialize")
    )
    profiles = checked(AgentProfileListResponse, client.get("/api/agent-profiles")).profiles
    profile_id = next(p.id for p in profiles if p.name == f"p-{tag}")
    checked(ActivateAgentProfileResponse, client.post(f"/api/agent-profiles/{profile_id}/activate"))
    checked(
        AgentProfileMutationResponse,
        client.post(f"/api/agent-profiles/p-{tag}/rename", json={"new_name": f"q-{tag}"}),
    )
    checked(AgentProfileMutationResponse, client.delete(f"/api/agent-profiles/q-{tag}"))
    done.append("agent profiles")

    route = {"classifier_model": f"b-{tag}", "classes": [{"description": "UI", "model": "x"}]}
    checked(MetaProfileMutationResponse, client.post(f"/api/meta-profiles/m-{tag}", json=route))
    checked(MetaProfileListResponse, client.get("/api/meta-profiles"))
    checked(MetaProfileDetailResponse, client.get(f"/api/meta-profiles/m-{tag}"))
    activated = checked(
        ActivateMetaProfileResponse, client.post(f"/api/meta-profiles/m-{tag}/activate")
    )
    checked(MetaProfileMutationResponse, client.delete(f"/api/meta-profiles/m-{tag}"))
    done.append("meta profiles")

    checked(SettingsSchema, client.get("/api/settings/agent-schema"))
    checked(SettingsSchema, client.get("/api/settings/conversation-schema"))
    server = {"command": "python", "args": ["-m", "interop_mcp"], "env": {"TOKEN": "x"}}
    checked(SettingsResponse, client.post("/api/settings/mcp/interop", json=server))
    checked(SettingsResponse, client.patch("/api/settings/mcp/interop", json={"args": []}))
    checked(SettingsResponse, client.delete("/api/settings/mcp/interop"))
    done.append("settings")

    probe = checked(
        MCPTestResponse,
        client.post("/api/mcp/test", json={"server": {"command": "/no/such/mcp"}, "timeout": 10}),
    )
    done.append("mcp test")

    item = {"id": "/interop", "name": "interop", "path": "/interop"}
    checked(WorkspacesListResponse, client.post("/api/workspaces", json={"workspaces": [item]}))
    checked(
        WorkspacesListResponse,
        client.post("/api/workspaces/parents", json={"parents": [item]}),
    )
    listed = checked(WorkspacesListResponse, client.get("/api/workspaces"))
    checked(DeleteResponse, client.delete("/api/workspaces", params={"path": "/interop"}))
    checked(DeleteResponse, client.delete("/api/workspaces/parents", params={"path": "/interop"}))
    done.append("workspaces")

    ready = client.get("/ready")
    info = checked(ServerInfo, client.get("/", headers={"Accept": "application/json"}))
    done.append("server")

    return {
        "done": done,
        "some_models": bool(models.models),
        "renamed": renamed.name == f"b-{tag}",
        "valid": valid.valid,
        "probe_ok": probe.ok,
        "profile_valid": diagnostics.valid,
        "meta_applied": activated.model_dump().get("applied"),  # not in 1.57's model
        "workspaces": [w.path for w in listed.workspaces],
        "ready": ready.json(),
        "uptime": info.uptime >= 0,
    }


def flow_gateway(config: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI-compatible routes, read with the reference's models."""
    workspace, _ = setup(config)
    client = workspace.client
    llm = {"model": config["model"], "base_url": config["base_url"], "api_key": "fake-key"}
    client.post("/api/profiles/interop-gateway", json={"llm": llm}).raise_for_status()
    models = checked(OpenAIModelListResponse, client.get("/v1/models"))
    response = checked(
        OpenAIResponse,
        client.post(
            "/v1/responses", json={"model": "openhands_interop-gateway", "input": "please say hi"}
        ),
    )
    unknown = client.post("/v1/responses", json={"model": "no_such", "input": "x"})
    return {
        "models": sorted(m.id for m in models.data),
        "text": response.output[0].content[0].text,
        "error": sorted(unknown.json()["error"]),
        "status": unknown.status_code,
    }


if __name__ == "__main__":
    flow, raw = sys.argv[1], sys.argv[2]
    print(json.dumps(globals()[f"flow_{flow}"](json.loads(raw)), default=str))
