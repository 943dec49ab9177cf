"""`ConversationConfig`: everything a conversation is configured with, as one object.

Fork, restart and resume copy this object whole; they never list its fields. A promise one
feature makes (AlwaysConfirm, a security analyzer, hooks, MCP servers, a condenser) therefore
cannot be dropped by another feature that copies a conversation: a new field added here is
stored in `base_state.json`, restored on reopen and carried by a fork without any other edit.

Where each promise lives:

- the agent: its LLM, tools, MCP servers (`agent.mcp_config`), condenser (`agent.condenser`)
  and context. Secrets inside it (LLM keys, MCP `env` and `headers`) are never written with
  it; they stay on the live object (a fork gets the same values) and the agent server seals
  them per conversation, so the stored configuration only refers to them;
- `confirmation_policy`, `security_analyzer` and `approval_rules`: which tool calls wait for
  approval;
- `hook_config`: the command, prompt and agent hooks;
- the workspace, the step limit and stuck detection;
- where it comes from: the conversation that started it (`parent_conversation_id`, a child's
  link, which a fork of the child keeps) and whether its working directory is a git worktree
  made for it (`worktree`).
"""

from __future__ import annotations

import uuid
from typing import Any

from openhands.sdk.agent.agent import Agent, AgentBase
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.security.approval_rules import AllowRule
from openhands.sdk.security.confirmation_policy import ConfirmationPolicy, NeverConfirm
from openhands.sdk.security.ensemble import SecurityAnalyzer
from openhands.sdk.workspace.local import LocalWorkspace
from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["ConversationConfig"]


class ConversationConfig(BaseModel):
    """A conversation's whole configuration: what a fork, a restart or a resume carries over.

    `ConversationState` is this plus the conversation's identity (id, title, tags, creation
    time) and what its events derive; `state.config` gives a copy of this part.
    """

    model_config = ConfigDict(defer_build=True, extra="ignore", arbitrary_types_allowed=True)

    agent: AgentBase = Field(
        description="The agent (LLM, tools, MCP servers, condenser); any AgentBase in memory, "
        "read from JSON as an Agent. Its secrets are never stored with it."
    )
    workspace: LocalWorkspace
    created_workspace: bool = Field(
        default=False,
        description="True when the working directory was made for this conversation (or for "
        "the one it was forked from); a server may remove such a folder with the last "
        "conversation that uses it. A folder that existed before is never removed.",
    )
    worktree: bool = Field(
        default=False,
        description="True when the working directory is in a git worktree made for this "
        "conversation (or the one it was forked from) in a folder of its own (with "
        "`created_workspace`): a server removes that folder, and git's record of the "
        "worktree, with the last conversation that uses it; the worktree's branch stays.",
    )
    worktree_git_dir: str | None = Field(
        default=None,
        description="For a `worktree`: git's folder for it in its repository "
        "(`<repository>/.git/worktrees/<name>`). The agent's sandboxed processes may write "
        "there and in the repository's objects, refs and logs (so git works in the "
        "worktree) and read the rest of the repository's `.git`, not its hooks or config.",
    )
    parent_conversation_id: uuid.UUID | None = Field(
        default=None,
        description="The conversation that started this one (a child conversation); None "
        "for a top-level one. The link stays when the parent is deleted.",
    )
    max_iterations: int = Field(default=500, ge=1, description="Agent steps allowed per run.")
    stuck_detection: bool = Field(default=True, description="End a run that repeats itself.")
    hook_config: HookConfig | None = None
    confirmation_policy: ConfirmationPolicy = Field(
        default_factory=NeverConfirm,
        description="Which tool calls wait for approval (see set_confirmation_policy).",
    )
    security_analyzer: SecurityAnalyzer | None = Field(
        default=None, description="Rates each tool call's risk for the confirmation policy."
    )
    approval_rules: list[AllowRule] = Field(
        default_factory=list,
        description="Standing approvals: calls they match run without asking, unless rated "
        "HIGH risk (see add_approval_rule).",
    )

    @field_validator("agent", mode="before")
    @classmethod
    def _agent_from_json(cls, value: Any) -> Any:
        # A bare AgentBase cannot step; persisted agents are the standard Agent.
        return Agent.model_validate(value) if isinstance(value, dict) else value

    @classmethod
    def field_names(cls) -> frozenset[str]:
        """The names of the configuration fields (what a copy carries)."""
        return frozenset(ConversationConfig.model_fields)

    def fields(self) -> dict[str, Any]:
        """The configuration fields and their values (the objects themselves, not copies)."""
        return {name: getattr(self, name) for name in ConversationConfig.model_fields}
