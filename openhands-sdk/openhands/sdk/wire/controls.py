"""Wire models of a conversation's controls: approval, client tools, checkpoints, the analyzer."""

from __future__ import annotations

from openhands.sdk.security.approval_rules import AllowRule
from openhands.sdk.security.confirmation_policy import ConfirmationPolicy
from openhands.sdk.security.ensemble import SecurityAnalyzer
from openhands.sdk.wire.base import WireAnswer, WireRequest
from pydantic import Field


class ClientToolResponseRequest(WireRequest):
    """Body of POST /client_tools/respond: the client's answer to a call that waits for it."""

    tool_call_id: str = Field(min_length=1, description="The waiting call's tool_call_id.")
    content: str = Field(max_length=1_000_000, description="The result the agent reads.")
    is_error: bool = Field(default=False, description="The call failed on the client.")
    run: bool = Field(default=True, description="Let the agent go on at once.")


class ConfirmationResponseRequest(WireRequest):
    """Body of POST /events/respond_to_confirmation: approve or reject the waiting calls."""

    accept: bool = Field(description="true runs the waiting tool calls; false rejects them.")
    reason: str = Field(
        default="User rejected the action.",
        max_length=10_000,
        description="Why they were rejected (the agent reads it); ignored when accepting.",
    )


class SetConfirmationPolicyRequest(WireRequest):
    """Body of POST /confirmation_policy."""

    policy: ConfirmationPolicy = Field(
        description='{"kind": "AlwaysConfirm"}, {"kind": "NeverConfirm"} or {"kind": '
        '"ConfirmRisky", "threshold": "HIGH", "confirm_unknown": true}.'
    )


class ApprovalRulesRequest(WireRequest):
    """Body of PUT /approval_rules: the conversation's standing approvals, all of them."""

    rules: list[AllowRule] = Field(
        description='e.g. [{"tool": "terminal", "command_prefix": "pytest"}, '
        '{"tool": "file_editor"}]; [] asks again for every call the policy covers.'
    )


class ApprovalSuggestions(WireAnswer):
    """What "always allow" would add for the calls waiting now."""

    like_these: list[AllowRule] = Field(
        default_factory=list,
        description="Rules for calls like these: the command's first words for the terminal, "
        "the tool for the others.",
    )
    tools: list[AllowRule] = Field(
        default_factory=list, description="One rule per tool: every call of these tools."
    )


class TakeCheckpointRequest(WireRequest):
    """Body of POST /checkpoints: snapshot the workspace now."""

    label: str = Field(
        default="checkpoint",
        min_length=1,
        max_length=200,
        description="What the snapshot marks, e.g. 'before the refactor'.",
    )
    goal_round: int | None = Field(
        default=None,
        ge=0,
        description="The goal round it ends (0: a goal's start); null: not a goal's round.",
    )


class SetSecurityAnalyzerRequest(WireRequest):
    """Body of POST /security_analyzer."""

    security_analyzer: SecurityAnalyzer | None = Field(
        description='e.g. {"kind": "LLMSecurityAnalyzer"}; null removes the analyzer.'
    )
