"""The agent server's wire format: the JSON bodies a server and its clients exchange.

One set of pydantic models for both sides: the agent server validates requests and builds
answers with them, and `RemoteConversation` builds its requests and reads the answers with
the same classes, so a field means the same thing at both ends. The goal's start request is
`openhands.sdk.conversation.goal.GoalRequest` (the same model `run_goal` checks with).

Requests that carry secrets (an agent's or a judge's LLM key) are sent with `to_wire(model)`,
which exposes them; answers never hold one (`LLM.api_key` is dropped from every JSON dump).
This module is not imported by `import openhands.sdk`; its models build their validators on
first use (`defer_build=True`).
"""

from openhands.sdk.wire.base import (
    ErrorDetail,
    ErrorResponse,
    Success,
    WireAnswer,
    WireModel,
    WireRequest,
    to_wire,
)
from openhands.sdk.wire.bash import BashCommand, BashEventPage, BashOutput, ExecuteCommandRequest
from openhands.sdk.wire.controls import (
    ApprovalRulesRequest,
    ApprovalSuggestions,
    ClientToolResponseRequest,
    ConfirmationResponseRequest,
    SetConfirmationPolicyRequest,
    SetSecurityAnalyzerRequest,
    TakeCheckpointRequest,
)
from openhands.sdk.wire.conversation_updates import (
    AgentResponseResult,
    AskAgentRequest,
    AskAgentResponse,
    ConversationRuntimeInfo,
    ConversationRuntimeStatus,
    LoadPluginRequest,
    NavigateConversationRequest,
    SwitchLLMRequest,
    SwitchProfileRequest,
    UpdateConversationRequest,
    UpdateSecretsRequest,
)
from openhands.sdk.wire.conversations import (
    PROFILE_USAGE_PREFIX,
    ConversationInfo,
    ConversationPage,
    DeleteConversationResponse,
    ForkConversationRequest,
    KeptFolder,
    SendMessageRequest,
    StartConversationRequest,
)
from openhands.sdk.wire.events import EventPage
from openhands.sdk.wire.goals import (
    GoalStepAnswer,
    GoalStepRequest,
    ResumeGoalRequest,
    StartGoalRequest,
)

__all__ = [
    "PROFILE_USAGE_PREFIX",
    "AgentResponseResult",
    "ApprovalRulesRequest",
    "ApprovalSuggestions",
    "AskAgentRequest",
    "AskAgentResponse",
    "BashCommand",
    "BashEventPage",
    "BashOutput",
    "ClientToolResponseRequest",
    "ConfirmationResponseRequest",
    "ConversationInfo",
    "ConversationPage",
    "ConversationRuntimeInfo",
    "ConversationRuntimeStatus",
    "DeleteConversationResponse",
    "ErrorDetail",
    "ErrorResponse",
    "EventPage",
    "ExecuteCommandRequest",
    "ForkConversationRequest",
    "GoalStepAnswer",
    "GoalStepRequest",
    "KeptFolder",
    "LoadPluginRequest",
    "NavigateConversationRequest",
    "ResumeGoalRequest",
    "SendMessageRequest",
    "SetConfirmationPolicyRequest",
    "SetSecurityAnalyzerRequest",
    "StartConversationRequest",
    "StartGoalRequest",
    "Success",
    "SwitchLLMRequest",
    "SwitchProfileRequest",
    "TakeCheckpointRequest",
    "UpdateConversationRequest",
    "UpdateSecretsRequest",
    "WireAnswer",
    "WireModel",
    "WireRequest",
    "to_wire",
]
