"""`start_child_conversation`: the agent starts a child conversation on its own server.

The child gets the conversation's configuration and a fresh history whose first message is
the task; it runs in parallel. The launch is a `POST /api/conversations/{id}/children` to
the agent server running the tool (`OH_INTERNAL_SERVER_URL`, which the server sets), or to
the `launch_url` param. Not in the default preset: it needs a server.
"""

from openhands.tools.child_conversation.definition import (
    StartChildConversationAction,
    StartChildConversationObservation,
    StartChildConversationTool,
)
from openhands.tools.child_conversation.impl import StartChildConversationExecutor

__all__ = [
    "StartChildConversationAction",
    "StartChildConversationExecutor",
    "StartChildConversationObservation",
    "StartChildConversationTool",
]
