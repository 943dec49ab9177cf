"""Loading a plugin into a `LocalConversation` that already exists: its `PluginLoading`.

The plugin is fetched and merged as at creation (`resolve_plugins`: its skills join the
agent's context, its MCP servers the agent's `mcp_config`, its hooks the conversation's),
between runs. The MCP servers are then started again, all of them, so their tools are named
exactly as a reopened conversation names them; the skills and hooks apply from the next
message and event on. The change is saved with the conversation's configuration, so a
reopened conversation has the plugin too. The conversation is told the new tools through
`on_loaded` (it owns its tools, context and hook runner).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from openhands.sdk.conversation.core import ConversationCore, require_open
from openhands.sdk.conversation.errors import ConversationAlreadyRunningError

if TYPE_CHECKING:
    from openhands.sdk.plugin.types import PluginSource, ResolvedPluginSource
    from openhands.sdk.tool.tool import ToolDefinition

logger = logging.getLogger(__name__)

__all__ = ["PluginLoading"]

Loaded = Callable[[dict[str, "ToolDefinition"]], None]
"""Told the conversation's tools after a plugin was loaded (its MCP tools started anew)."""


class PluginLoading:
    """Loads plugins into a conversation between runs (see the module docstring)."""

    def __init__(self, core: ConversationCore, on_loaded: Loaded) -> None:
        self._core = core
        self._on_loaded = on_loaded

    def load(self, plugin: PluginSource | str) -> list[ResolvedPluginSource]:
        """Fetch `plugin` (a folder, a git URL, `github:owner/repo`, or a `PluginSource`) and
        load it; the plugins it resolved to, pinned to what loaded.

        Raises `ConversationAlreadyRunningError` during a run, and what `resolve_plugins`
        raises for a plugin that cannot be fetched or read (PluginFetchError,
        FileNotFoundError, PluginError); nothing changes then.
        """
        from openhands.sdk.hooks.config import HookConfig
        from openhands.sdk.plugin.loader import resolve_plugins

        core = self._core
        require_open(core)
        state = core.state
        if core.is_running:
            raise ConversationAlreadyRunningError(
                f"Conversation {state.id} is running; load the plugin once the run has ended."
            )
        loaded = resolve_plugins([plugin], state.agent)  # may fetch: outside the lock
        with state.lock:
            if core.is_running:
                raise ConversationAlreadyRunningError(
                    f"Conversation {state.id} started running; load the plugin after it."
                )
            before = (state.agent, state.hook_config)
            state.agent = loaded.agent
            state.hook_config = HookConfig.merge(
                [c for c in (state.hook_config, loaded.hooks) if c]
            )
            try:
                core.save_config()
            except BaseException:
                state.agent, state.hook_config = before
                raise
            self._on_loaded(self._restart_mcp_tools(core.tools))
        logger.info("conversation %s: loaded plugin %s", state.id, loaded.plugins[0].name)
        return list(loaded.resolved)

    def _restart_mcp_tools(self, tools: Mapping[str, ToolDefinition]) -> dict[str, ToolDefinition]:
        """Stop the MCP servers' tools and start every server of the agent's `mcp_config`."""
        from openhands.sdk.mcp.tool import MCPToolDefinition
        from openhands.sdk.mcp.utils import create_mcp_tools

        old = {n: t for n, t in tools.items() if isinstance(t, MCPToolDefinition)}
        others = {name: tool for name, tool in tools.items() if name not in old}
        for tool in old.values():
            try:
                tool.close()
            except Exception:
                logger.exception("closing MCP tool %s failed", tool.name)
        state = self._core.state
        agent = state.agent
        pattern = re.compile(agent.filter_tools_regex) if agent.filter_tools_regex else None
        started = create_mcp_tools(
            agent.mcp_config,
            working_dir=state.workspace.working_dir,
            keep=pattern.match if pattern is not None else None,
            reserved=others,
        )
        return {**others, **{tool.name: tool for tool in started}}
