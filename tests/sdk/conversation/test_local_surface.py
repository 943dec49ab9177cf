"""`LocalConversation`'s public surface is pinned while its concerns live in collaborators.

Each concern (runs, approvals, client calls, fork, checkpoints, model switching) is an object
the conversation owns, not a base class: its calls stay on the conversation and hand over.
"""

from __future__ import annotations

from pathlib import Path

from openhands.sdk import Agent, LocalConversation
from openhands.sdk.llm.llm_profile_store import LLMProfileStore
from openhands.sdk.testing import TestLLM
from openhands.sdk.workspace.checkpoints import CheckpointSettings

PUBLIC = [
    "add_approval_rule",
    "add_callback",
    "agent",
    "append_event",
    "approval_rules",
    "approve_pending_actions",
    "arun",
    "ask_agent",
    "checkpoint",
    "checkpoint_diff",
    "checkpoint_settings",
    "checkpoint_store",
    "close",
    "condense",
    "context",
    "conversation_stats",
    "delete_on_close",
    "execute_tool",
    "fork",
    "generate_title",
    "get_or_create_profile_llm",
    "hook_runner",
    "id",
    "interrupt",
    "is_closed",
    "is_running",
    "list_checkpoints",
    "load_plugin",
    "max_iteration_per_run",
    "navigate_to",
    "needs_approval",
    "pause",
    "pending_actions",
    "pending_client_calls",
    "profile_store",
    "rated",
    "record_stats",
    "reject_pending_actions",
    "remove_approval_rule",
    "remove_callback",
    "resolved_plugins",
    "respond_to_client_tool",
    "rewind",
    "run",
    "send_message",
    "set_approval_rules",
    "set_confirmation_policy",
    "set_security_analyzer",
    "set_token_callbacks",
    "state",
    "stuck_detection",
    "stuck_detector",
    "switch_llm",
    "switch_profile",
    "take_approved_actions",
    "tool_schemas",
    "tools",
    "update_secrets",
    "visualizer",
    "wait_for_approval",
    "wait_for_client",
    "workspace",
]
"""Every public method and attribute (class and instance), sorted."""


def _conversation(workspace_dir: Path) -> LocalConversation:
    return LocalConversation(Agent(llm=TestLLM.from_messages([]), tools=[]), workspace_dir)


def test_the_public_members_are_the_pinned_ones(workspace_dir: Path) -> None:
    conversation = _conversation(workspace_dir)
    try:
        names = {n for n in dir(conversation) if not n.startswith("_")}
        assert sorted(names) == PUBLIC
    finally:
        conversation.close()


def test_no_concern_is_mixed_in() -> None:
    assert [c.__name__ for c in LocalConversation.__mro__] == [
        "LocalConversation",
        "ConversationParts",
        "BaseConversation",
        "ABC",
        "Generic",
        "object",
    ]


def test_the_settings_kept_by_collaborators_can_still_be_set_on_the_conversation(
    workspace_dir: Path, tmp_path: Path
) -> None:
    conversation = _conversation(workspace_dir)
    try:
        store = LLMProfileStore(tmp_path / "profiles")
        settings = CheckpointSettings(enabled=False)

        conversation.profile_store = store
        conversation.checkpoint_settings = settings

        assert conversation.profile_store is store
        assert conversation.checkpoint_settings is settings
        assert conversation.list_checkpoints() == []  # switched off: nothing, and no error
    finally:
        conversation.close()


def test_max_iteration_per_run_reads_the_limit_given_or_the_default(
    workspace_dir: Path, tmp_path: Path
) -> None:
    default = _conversation(workspace_dir)
    limited = LocalConversation(
        Agent(llm=TestLLM.from_messages([]), tools=[]),
        workspace_dir,
        persistence_dir=tmp_path / "limited",
        max_iteration_per_run=7,
    )
    try:
        assert default.max_iteration_per_run == 500
        assert limited.max_iteration_per_run == 7
    finally:
        default.close()
        limited.close()
