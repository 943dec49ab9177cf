"""The sub-conversation an agent hook runs, given to the hooks by the conversation.

Hooks sit below the agent and the conversation, so they do not build either: a conversation
hands its `HookRunner` a `HookAgent` made here (`hook_agent_for(LocalConversation)`), which runs
a short conversation of its own (no hooks, the hook's tools, `max_iterations` steps) and
returns the agent's last word.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from openhands.sdk.agent.agent import Agent
from openhands.sdk.conversation.base import BaseConversation
from openhands.sdk.conversation.errors import ConversationRunError
from openhands.sdk.event.action import ActionEvent
from openhands.sdk.event.base import Event
from openhands.sdk.event.message import MessageEvent
from openhands.sdk.hooks.agent_hook import HookAgent
from openhands.sdk.hooks.config import HookDefinition
from openhands.sdk.llm.llm import LLM
from openhands.sdk.tool.builtins import FinishAction
from openhands.sdk.tool.tool import Tool

logger = logging.getLogger(__name__)

SubConversationFactory = Callable[..., BaseConversation]
"""Builds the hook's conversation: `(agent, working_dir, hook_config=None,
max_iteration_per_run=N)`, e.g. `LocalConversation`."""


def hook_agent_for(new_conversation: SubConversationFactory) -> HookAgent:
    """The `HookAgent` that runs each agent hook in a conversation `new_conversation` builds."""

    def run(hook: HookDefinition, llm: LLM, request: str, working_dir: str) -> str:
        agent = Agent(
            llm=llm,
            tools=[Tool(name=name) for name in hook.tools],
            include_default_tools=["FinishTool"],
            system_prompt=hook.system_prompt,
        )
        conversation = new_conversation(
            agent, working_dir, hook_config=None, max_iteration_per_run=hook.max_iterations
        )
        try:
            conversation.send_message(request)
            try:
                conversation.run()
            except ConversationRunError as exc:
                logger.warning("%s did not finish: %s", hook.display_command, exc)
            return final_answer(list(conversation.state.events))
        finally:
            conversation.close()

    return run


def final_answer(events: Sequence[Event]) -> str:
    """The agent's last word in `events`: its last text message or `finish` message."""
    for event in reversed(events):
        if isinstance(event, MessageEvent) and event.source == "agent":
            return event.llm_message.text
        if isinstance(event, ActionEvent) and event.tool_name == "finish":
            action: Any = event.action
            if isinstance(action, FinishAction):
                return action.message
            return str(action.get("message") or "") if isinstance(action, dict) else ""
    return ""
