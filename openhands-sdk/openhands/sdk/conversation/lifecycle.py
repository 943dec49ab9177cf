"""What a `LocalConversation` takes as it opens and gives back as it closes.

`open_state` turns the constructor's arguments into a `ConversationState`: it merges the
plugins and client tools into the agent, finds the conversation's folder (a stored
conversation is reopened), picks its workspace (the stored one, the config's, or the current
directory for a new conversation) and creates or loads the state. `SandboxClaim` hides the
workspace and the log from other conversations' sandboxes while the conversation is open;
`start_tools` makes the agent's tools; `introduce` opens a new log with the system prompt;
`close_tools` and `save_at_close` are the other end.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.base import as_conversation_id
from openhands.sdk.conversation.config import ConversationConfig
from openhands.sdk.conversation.snapshot import BASE_STATE_FILE
from openhands.sdk.conversation.state import ConversationExecutionStatus, ConversationState
from openhands.sdk.errors import InvalidArgumentError, StorageError
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.tool.tool import ToolContext, ToolDefinition
from openhands.sdk.workspace.local import LocalWorkspace
from openhands.sdk.workspace.sandbox import (
    claim_workspace,
    hide_path,
    release_workspace,
    unhide_path,
)

if TYPE_CHECKING:
    from openhands.sdk.context.conversation_context import ConversationContext
    from openhands.sdk.conversation.recording import Recorder
    from openhands.sdk.plugin.types import PluginSource, ResolvedPluginSource
    from openhands.sdk.tool.client_tool import ClientToolSpec

__all__ = [
    "SandboxClaim",
    "close_tools",
    "introduce",
    "open_state",
    "save_at_close",
    "start_tools",
]

logger = logging.getLogger(__name__)


def open_state(
    agent: AgentBase | None,
    workspace: LocalWorkspace | str | Path | None,
    *,
    persistence_dir: str | Path | None,
    conversation_id: uuid.UUID | str | None,
    max_iteration_per_run: int | None,
    hook_config: HookConfig | None,
    stuck_detection: bool | None,
    tags: dict[str, str] | None,
    config: ConversationConfig | None,
    plugins: Sequence[PluginSource | str] | None,
    client_tools: Sequence[ClientToolSpec | Mapping[str, Any]] | None,
) -> tuple[ConversationState, list[ResolvedPluginSource] | None]:
    """The state of a new or reopened conversation, and the plugins it loaded (pinned).

    The arguments are `LocalConversation`'s (see its constructor for what each means).
    """
    resolved_plugins = None
    if plugins:
        if agent is None:
            raise InvalidArgumentError("plugins are merged into an agent: pass the agent too")
        from openhands.sdk.plugin.loader import resolve_plugins

        loaded = resolve_plugins(plugins, agent)
        agent = loaded.agent
        hook_config = HookConfig.merge([c for c in (hook_config, loaded.hooks) if c])
        resolved_plugins = loaded.resolved
    if client_tools:
        if agent is None:
            raise InvalidArgumentError("client_tools are given to an agent: pass the agent too")
        from openhands.sdk.tool.client_tool import with_client_tools

        agent = with_client_tools(agent, client_tools)
    cid = as_conversation_id(conversation_id) or uuid.uuid4()
    folder = Path(persistence_dir) / cid.hex if persistence_dir is not None else None
    stored = folder is not None and (folder / BASE_STATE_FILE).is_file()
    if workspace is None and config is not None:
        workspace = config.workspace
    if workspace is None and not stored:
        workspace = os.getcwd()
    if workspace is not None and not isinstance(workspace, LocalWorkspace):
        workspace = LocalWorkspace(working_dir=str(workspace))
    made_workspace = False
    if workspace is not None:
        made_workspace = not stored and not Path(workspace.working_dir).exists()
        workspace.ensure_exists()
    state = ConversationState.create(
        cid,
        agent,
        workspace,
        persistence_dir=folder,
        max_iterations=max_iteration_per_run,
        stuck_detection=stuck_detection,
        hook_config=hook_config,
        tags=tags,
        config=config,
        created_workspace=made_workspace,
    )
    return state, resolved_plugins


class SandboxClaim:
    """Keeps a conversation's workspace and log out of other conversations' sandboxes.

    Claimed when made; `release()` gives both back (once, whoever calls it first).
    """

    def __init__(self, state: ConversationState) -> None:
        self._claimed: tuple[str, Path | None] | None = (state.workspace.working_dir, state.folder)
        claim_workspace(state.workspace.working_dir, state.workspace.sandbox)
        if state.folder is not None:
            hide_path(state.folder)

    def release(self) -> None:
        """Undo the claim (once)."""
        claimed, self._claimed = self._claimed, None
        if claimed is not None:
            working_dir, folder = claimed
            release_workspace(working_dir)
            if folder is not None:
                unhide_path(folder)


def start_tools(state: ConversationState) -> dict[str, ToolDefinition]:
    """The agent's tools, made for this conversation's workspace and folder (by name)."""
    context = ToolContext(
        working_dir=state.workspace.working_dir,
        persistence_dir=str(state.folder) if state.folder else None,
        conversation_id=state.id.hex,
    )
    state.workspace.ensure_exists()
    if any("spec" in tool.params for tool in state.agent.tools):
        # Client tools travel in their spec: register them again in a new process.
        from openhands.sdk.tool import client_tool

        client_tool.register_client_tools(client_tool.extract_client_tool_specs(state.agent.tools))
    return state.agent.init_tools(context)


def introduce(
    state: ConversationState,
    recorder: Recorder,
    tools: Mapping[str, ToolDefinition],
    schemas: Sequence[Mapping[str, object]],
    context: ConversationContext,
) -> None:
    """Open a new conversation's log with the system prompt (the tools as the LLM is shown
    them, `schemas` in the order of `tools`), or record that the process running a reopened
    one died mid-run."""
    if not state.has_events:
        records = [
            {**schema, **tool.identity()}
            for schema, tool in zip(schemas, tools.values(), strict=True)
        ]
        recorder.emit(state.agent.system_prompt_event(records, context))
    elif state.execution_status == ConversationExecutionStatus.RUNNING:
        recorder.record_interruption()


def close_tools(tools: Mapping[str, ToolDefinition]) -> None:
    """Close every tool; one that fails is logged and does not keep the others open."""
    for tool in tools.values():
        try:
            tool.close()
        except Exception:
            logger.exception("closing tool %s failed", tool.name)


def save_at_close(state: ConversationState) -> None:
    """Write the state's last files and snapshot, then close its log.

    A refusing disk only costs the snapshot (a reopen reads the log instead); a folder that
    was removed (the conversation was deleted, e.g. by the server) gets nothing written.
    """
    with state.lock:
        folder = state.folder
        if folder is None or folder.is_dir():
            state.update_event_files()
        try:
            # The snapshot that lets a reopen skip the history; none for a folder
            # that was removed (the conversation was deleted, e.g. by the server).
            if folder is None or folder.is_dir():
                state.save()
        except StorageError as exc:
            logger.warning(
                "conversation %s: base_state.json not updated at close (the event "
                "log has everything, a reopen reads it instead): %s",
                state.id,
                exc,
            )
        state.close()
