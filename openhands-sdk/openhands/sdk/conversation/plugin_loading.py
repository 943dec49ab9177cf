"""Loading a plugin into a `LocalConversation` that already exists (a mixin of it).

The plugin is fetched and merged as at creation (`resolve_plugins`: its skills join the
agent's context, its MCP servers the agent's `mcp_config`, its hooks the conversation's),
between runs. The MCP servers are then started again, all of them, so their tools are named
exactly as a reopened conversation names them; the skills and hooks apply from the next
message and event on. The change is saved with the conversation's configuration, so a
reopened conversation has the plugin too.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import TYPE_CHECKING

from openhands.sdk.conversation.errors import ConversationAlreadyRunningError

if TYPE_CHECKING:
    import uuid

    from openhands.sdk.context.conversation_context import ConversationContext
    from openhands.sdk.conversation.state import ConversationState
    from openhands.sdk.hooks.runner import HookRunner
    from openhands.sdk.plugin.types import PluginSource, ResolvedPluginSource
    from openhands.sdk.tool.tool import ToolDefinition

logger = logging.getLogger(__name__)


class PluginLoading:
    """The `load_plugin` part of `LocalConversation` (see the module docstring)."""

    # Provided by LocalConversation.
    _state: ConversationState
    _lock: threading.RLock
    tools: dict[str, ToolDefinition]
    tool_schemas: list[dict[str, object]]
    context: ConversationContext
    hook_runner: HookRunner
    resolved_plugins: list[ResolvedPluginSource] | None

    @property
    def id(self) -> uuid.UUID:
        raise NotImplementedError

    @property
    def is_running(self) -> bool:
        raise NotImplementedError

    def _check_open(self) -> None:
        raise NotImplementedError

    def _save_config(self) -> None:
        raise NotImplementedError

    def _tool_schemas(self) -> list[dict[str, object]]:
        raise NotImplementedError

    def _new_hook_runner(self) -> HookRunner:
        raise NotImplementedError

    def load_plugin(self, plugin: PluginSource | str) -> None:
        """Fetch `plugin` (a folder, a git URL, `github:owner/repo`, or a `PluginSource`) and
        load it into this conversation between runs.

        Raises `ConversationAlreadyRunningError` during a run, and what `resolve_plugins`
        raises for a plugin that cannot be fetched or read (PluginFetchError,
        FileNotFoundError, PluginError); nothing changes then.
        """
        from openhands.sdk.context.conversation_context import ConversationContext
        from openhands.sdk.hooks.config import HookConfig
        from openhands.sdk.plugin.loader import resolve_plugins

        self._check_open()
        if self.is_running:
            raise ConversationAlreadyRunningError(
                f"Conversation {self.id} is running; load the plugin once the run has ended."
            )
        state = self._state
        loaded = resolve_plugins([plugin], state.agent)  # may fetch: outside the lock
        with self._lock:
            if self.is_running:
                raise ConversationAlreadyRunningError(
                    f"Conversation {self.id} started running; load the plugin after it."
                )
            before = (state.agent, state.hook_config)
            state.agent = loaded.agent
            state.hook_config = HookConfig.merge(
                [c for c in (state.hook_config, loaded.hooks) if c]
            )
            try:
                self._save_config()
            except BaseException:
                state.agent, state.hook_config = before
                raise
            self._restart_mcp_tools()
            self.context = ConversationContext(
                state.agent.agent_context, state.workspace.working_dir
            )
            self.hook_runner = self._new_hook_runner()
            self.resolved_plugins = [*(self.resolved_plugins or []), *loaded.resolved]
        logger.info("conversation %s: loaded plugin %s", self.id, loaded.plugins[0].name)

    def _restart_mcp_tools(self) -> None:
        """Stop the MCP servers' tools and start every server of the agent's `mcp_config`."""
        from openhands.sdk.mcp.tool import MCPToolDefinition
        from openhands.sdk.mcp.utils import create_mcp_tools

        old = {n: t for n, t in self.tools.items() if isinstance(t, MCPToolDefinition)}
        others = {name: tool for name, tool in self.tools.items() if name not in old}
        for tool in old.values():
            try:
                tool.close()
            except Exception:
                logger.exception("closing MCP tool %s failed", tool.name)
        agent = self._state.agent
        pattern = re.compile(agent.filter_tools_regex) if agent.filter_tools_regex else None
        started = create_mcp_tools(
            agent.mcp_config,
            working_dir=self._state.workspace.working_dir,
            keep=pattern.match if pattern is not None else None,
            reserved=others,
        )
        self.tools = {**others, **{tool.name: tool for tool in started}}
        self.tool_schemas = self._tool_schemas()
