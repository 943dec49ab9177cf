"""What a create request adds to its agent before the conversation starts: plugins (skills,
MCP servers, hooks) and client-defined tools. Bad input is a 422 naming the field."""

from __future__ import annotations

from openhands.agent_server.errors import InvalidRequestError
from openhands.sdk.agent.base import AgentBase
from openhands.sdk.extensions.errors import ExtensionError
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.wire import StartConversationRequest


def extended_agent(request: StartConversationRequest) -> tuple[AgentBase, HookConfig | None]:
    """The request's agent with its plugins and client tools, and the hooks to use.

    Blocking (a plugin may be cloned with git): run it in a control thread.
    """
    agent: AgentBase = request.agent
    hook_config = request.hook_config
    if request.plugins:
        from openhands.sdk.plugin.loader import resolve_plugins

        try:
            loaded = resolve_plugins(request.plugins, agent)
        except (ExtensionError, OSError, ValueError) as exc:
            raise InvalidRequestError(str(exc), ("body", "plugins")) from exc
        agent = loaded.agent
        hook_config = HookConfig.merge([c for c in (hook_config, loaded.hooks) if c])
    if request.client_tools:
        from openhands.sdk.tool.client_tool import ClientToolRegistrationError, with_client_tools

        try:
            agent = with_client_tools(agent, request.client_tools)
        except ClientToolRegistrationError as exc:
            raise InvalidRequestError(str(exc), ("body", "client_tools")) from exc
    return agent, hook_config
