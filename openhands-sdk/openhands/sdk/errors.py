"""The root of every error this project raises, and the storage errors shared by all layers.

Catch `OpenHandsError` to handle anything we raise; catch a subclass to handle one failure.
Errors that mean "you used the API wrongly" also derive from `ValueError` (or `LookupError`),
so plain Python code catches them as it would any bad argument. Every message says what to do.

OpenHandsError
├── InvalidArgumentError              (ValueError) here: an argument or setting the API cannot take
│   ├── InvalidArgumentTypeError      (TypeError) an argument of the wrong type
│   ├── InvalidSettingError           an environment variable or setting: names it and its range
│   └── ResponseSchemaError           openhands.sdk.tool.response_schema: an unusable schema
├── InvalidStateError                 (RuntimeError) here: called at the wrong time (not started, ...)
├── NotFoundError                     (FileNotFoundError) here: no LLM profile or plugin of that name
├── LLMError                          openhands.sdk.llm.errors: calling a model failed
│   ├── LLMConfigurationError         (ValueError) no model or key: names what to set
│   ├── LLMAuthenticationError        the provider refused the key
│   ├── LLMBadRequestError            the provider refused the request
│   │   └── LLMModelNotFoundError     the server does not serve that model
│   ├── LLMUnreachableError           the model's server cannot be reached
│   ├── LLMTransientError             still failing after the retries
│   └── LLMResponseError              an answer we cannot use
├── ConversationError                 openhands.sdk.conversation.errors
│   ├── ConversationRunError          a run failed: conversation id, code and detail
│   ├── ConversationAlreadyRunningError
│   ├── ConversationClosedError
│   ├── ConversationStateError        (ValueError) a persisted state cannot be read
│   ├── UserPromptBlockedError        (ValueError) a UserPromptSubmit hook refused the message
│   └── RemoteConversationError       openhands.sdk.remote.errors
├── GoalError                         openhands.sdk.conversation.goal.errors
│   ├── InvalidGoalError              (ValueError) a goal option is invalid; names the field
│   ├── NoResumableGoalError          (ValueError) nothing to resume (code no_resumable_goal)
│   ├── NoGoalStartedError            (ValueError) waited for a goal before starting one
│   └── GoalStepError                 (ValueError) a driver used the step machine wrongly
├── EventLogError                     openhands.sdk.conversation.event_log
│   ├── EventLogCorruptError          (ValueError) a line before the end is not an event
│   └── EventLogClosedError           an append after close
├── MCPError                          openhands.sdk.mcp.errors: a server cannot start or answer
│   ├── MCPConfigError                (ValueError) an mcp_config of the wrong shape
│   └── MCPTimeoutError               (TimeoutError) no answer in time
├── StructuredOutputError             (ValueError) openhands.sdk.tool.response_schema
├── InvalidToolSpecError              (ValueError) openhands.sdk.tool.registry
│   └── UnknownToolError
├── UnknownEventKindError             (ValueError) openhands.sdk.event.base
├── AgentDefinitionError              (ValueError) openhands.sdk.subagent: a bad agent file
├── FrontMatterError                  (ValueError) openhands.sdk.utils.frontmatter: bad YAML header
├── UnknownAgentError                 (ValueError) openhands.sdk.subagent: no agent of that name
├── DuplicateAgentError               (ValueError) openhands.sdk.subagent: the name is taken
├── SkillValidationError              (ValueError) openhands.sdk.context: a malformed skill file
├── CheckpointError                   openhands.sdk.workspace.checkpoints: a snapshot, diff or rewind
│   ├── CheckpointUnavailableError    no git, switched off, or the conversation does not persist
│   ├── CheckpointLimitError          (ValueError) a snapshot would add more than max_files
│   └── UnknownCheckpointError        (LookupError) no checkpoint has that id
├── UnknownUsageIdError               (LookupError) openhands.sdk.conversation.conversation_stats
└── StorageError                      (OSError) here: the disk refused a write or a read
    └── StorageFullError              no space left (ENOSPC, EDQUOT)
"""

from __future__ import annotations

import errno

__all__ = [
    "InvalidArgumentError",
    "InvalidArgumentTypeError",
    "InvalidSettingError",
    "InvalidStateError",
    "NotFoundError",
    "OpenHandsError",
    "StorageError",
    "StorageFullError",
    "storage_error",
]


class OpenHandsError(Exception):
    """Base class of every error raised by the SDK, the tools and the agent server."""


class InvalidArgumentError(OpenHandsError, ValueError):
    """The API was called with a value it cannot take; the message names it and what it takes.

    The "you used it wrongly" error of calls that have no family of their own (a goal option
    is an `InvalidGoalError`, a tool spec an `InvalidToolSpecError`, and so on).
    """


class InvalidArgumentTypeError(InvalidArgumentError, TypeError):
    """An argument has the wrong type; the message names the type expected."""


class InvalidSettingError(InvalidArgumentError):
    """An environment variable or setting has a value we cannot use; the message names it and
    the values it takes."""


class InvalidStateError(OpenHandsError, RuntimeError):
    """Called at a time it cannot run (not started yet, already running, ...); the message says
    what to do first."""


class NotFoundError(OpenHandsError, FileNotFoundError):
    """Something asked for by name (an LLM profile, a plugin folder) does not exist; the message
    names what there is, or how to create it."""


class StorageError(OpenHandsError, OSError):
    """Persisting or reading a conversation failed at the operating-system level.

    Nothing was half-written: the operation that raised it left the files as they were.
    `cause` is the underlying `OSError`.
    """

    def __init__(self, message: str, cause: OSError | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.cause = cause
        if cause is not None:
            self.errno = cause.errno
            self.strerror = cause.strerror

    def __str__(self) -> str:
        # OSError would print "[Errno N] strerror" instead of the message that names the fix.
        return self.message


class StorageFullError(StorageError):
    """The disk (or the quota) is full: free space, then retry; nothing acknowledged is lost."""


FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def storage_error(action: str, path: object, cause: OSError) -> StorageError:
    """Wrap `cause` (raised while doing `action` on `path`) in the matching StorageError."""
    reason = cause.strerror or type(cause).__name__
    if cause.errno in FULL_ERRNOS:
        return StorageFullError(
            f"Cannot {action} {path}: {reason}. Free disk space, then retry; "
            "nothing that was acknowledged was lost.",
            cause,
        )
    return StorageError(
        f"Cannot {action} {path}: {reason}. Check that the folder exists, is writable and "
        "that the disk is healthy, then retry.",
        cause,
    )
