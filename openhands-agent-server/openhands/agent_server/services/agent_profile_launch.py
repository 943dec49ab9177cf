"""What an agent profile resolves to: the agent settings (and so the agent) it describes,
and the diagnostics of materialize (what is missing, without launching).

`llm_profile_ref` is looked up in the stored LLM profiles (its key stays on the server),
`mcp_server_refs` in the stored settings' `mcp_config`, `disabled_skills` and
`system_message_suffix` go into the agent's context, `secret_refs` filters the secrets a
conversation is created with. A profile is valid when its LLM profile exists, every MCP
server it names is stored and every tool it names is installed.
"""

from __future__ import annotations

from typing import Any

from openhands.agent_server.errors import InvalidRequestError, NotFoundError
from openhands.agent_server.services.agent_profiles import AgentProfiles
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.context import AgentContext
from openhands.sdk.settings import OpenHandsAgentSettings
from openhands.sdk.tool.registry import registered_tools
from openhands.sdk.wire import PROFILE_USAGE_PREFIX, StartConversationRequest
from openhands.sdk.wire.agent_profiles import (
    SEED_PROFILE_NAME,
    AgentProfile,
    AgentProfileDiagnostics,
)


def diagnose(
    profile: AgentProfile, stores: ServerSettings
) -> tuple[AgentProfileDiagnostics, OpenHandsAgentSettings | None]:
    """The diagnostics of `profile` and, when it is valid, the settings it resolves to."""
    report = AgentProfileDiagnostics(
        llm_profile_ref=profile.llm_profile_ref,
        mcp_server_refs=profile.mcp_server_refs,
        disabled_skills=list(profile.disabled_skills),
        secret_refs=profile.secret_refs,
    )
    stored_llm = stores.profiles.find(profile.llm_profile_ref)
    if stored_llm is None:
        report.errors.append(f"LLM profile {profile.llm_profile_ref!r} not found")
    else:
        report.llm_profile_resolved = True
        report.llm_api_key_set = stored_llm.api_key_set
    servers = stores.settings.mcp_config()
    refs = list(servers) if profile.mcp_server_refs is None else profile.mcp_server_refs
    report.resolved_mcp_config_keys = [r for r in dict.fromkeys(refs) if r in servers]
    report.dangling_mcp_server_refs = [r for r in dict.fromkeys(refs) if r not in servers]
    for name in report.dangling_mcp_server_refs:
        report.errors.append(f"MCP server {name!r} is not in the stored settings' mcp_config")
    known = set(registered_tools())
    report.unusable_tools = [t.name for t in profile.tools or [] if t.name not in known]
    for name in report.unusable_tools:
        report.errors.append(f"tool {name!r} is not installed on this server")
    if report.errors or stored_llm is None:
        return report, None
    llm = stored_llm.llm.copy_for(f"{PROFILE_USAGE_PREFIX}{profile.llm_profile_ref}")
    context = None
    if profile.system_message_suffix or profile.disabled_skills:
        context = AgentContext(
            system_message_suffix=profile.system_message_suffix,
            disabled_skills=list(profile.disabled_skills),
        )
    settings = OpenHandsAgentSettings(
        llm=llm,
        tools=profile.tools,
        tool_concurrency_limit=profile.tool_concurrency_limit,
        mcp_config={name: servers[name] for name in report.resolved_mcp_config_keys},
        agent_context=context,
        condenser=profile.condenser,
    )
    report.valid = True
    report.resolved_settings = settings.model_dump(mode="json", exclude_defaults=True)
    return report, settings


def with_agent_profile(
    request: StartConversationRequest, profiles: AgentProfiles, stores: ServerSettings
) -> StartConversationRequest:
    """`request` whose agent is built from the profile `agent_profile_id` names (by id or
    name), its secrets filtered by the profile's `secret_refs`. 422 naming the field when
    the profile is unknown or does not resolve."""
    wanted = request.agent_profile_id
    if wanted is None:
        return request
    profile = profiles.by_id(wanted)
    if profile is None:
        try:
            profile = profiles.get(wanted)
        except NotFoundError as exc:
            raise InvalidRequestError(str(exc), ("body", "agent_profile_id")) from None
    report, settings = diagnose(profile, stores)
    if settings is None:
        raise InvalidRequestError(
            f"agent profile {profile.name!r} cannot be launched: {'; '.join(report.errors)}",
            ("body", "agent_profile_id"),
        )
    update: dict[str, Any] = {"agent": settings.create_agent()}
    if profile.secret_refs is not None:
        allowed = set(profile.secret_refs)
        update["secrets"] = {k: v for k, v in request.secrets.items() if k in allowed}
    return request.model_copy(update=update)


def seed_profile(stores: ServerSettings) -> AgentProfile:
    """The `default` profile made from the stored settings (when there is no profile)."""
    stored = stores.settings.settings.agent_settings
    data = stored.model_dump(mode="json", exclude_unset=True)
    context = data.get("agent_context") or {}
    return AgentProfile(
        name=SEED_PROFILE_NAME,
        llm_profile_ref=stores.settings.active_profile or SEED_PROFILE_NAME,
        tools=data.get("tools"),
        system_message_suffix=context.get("system_message_suffix"),
        disabled_skills=list(context.get("disabled_skills") or []),
        tool_concurrency_limit=data.get("tool_concurrency_limit") or 1,
    )
