"""`ConversationContext`: an agent's `AgentContext` resolved for one conversation.

The conversation knows what the context cannot when it is built: the workspace (project
skills, project memory) and which triggered skills this conversation was already given.
"""

from __future__ import annotations

import logging
import uuid

from openhands.sdk.context.agent_context import AgentContext
from openhands.sdk.context.memory import load_memory
from openhands.sdk.context.skill_loading import load_project_skills, merge_skills_by_name
from openhands.sdk.event.message import MessageEvent
from openhands.sdk.llm.message import Message, TextContent

logger = logging.getLogger(__name__)


class ConversationContext:
    """The agent context of one conversation in `working_dir`.

    With `load_project_skills`, the workspace's skills are read once, here, and win a name
    over the context's own. A triggered skill is added to the first message that triggers
    it and not again in this conversation object (a reopened conversation may add it once
    more). Memory is read when the system prompt is built (`system_message_suffix`).
    """

    def __init__(
        self,
        agent_context: AgentContext | None,
        working_dir: str,
        secret_infos: list[dict[str, str | None]] | None = None,
    ) -> None:
        self.working_dir = working_dir
        self.agent_context = _with_project_skills(agent_context, working_dir)
        self.activated_skills: list[str] = []
        self.secret_infos = secret_infos or []
        """The conversation's secrets (name, description): the system prompt names them."""

    def system_message_suffix(self, llm_model: str | None = None) -> str | None:
        """The dynamic part of the system prompt for a new conversation (reads the memory)."""
        context = self.agent_context
        if context is None:
            if not self.secret_infos:
                return None
            context = AgentContext(current_datetime=None)
        if context.load_memory and context.memory_context is None:
            try:
                memory = load_memory(self.working_dir)
            except Exception as exc:  # memory is a help, never a reason not to start
                logger.warning("Memory not loaded (the conversation starts without it): %s", exc)
                memory = None
            context = context.model_copy(update={"memory_context": memory})
        return context.get_system_message_suffix(
            llm_model, additional_secret_infos=self.secret_infos
        )

    def user_message_event(
        self,
        message: Message,
        *,
        additional_context: str = "",
        event_id: str | None = None,
    ) -> MessageEvent:
        """The event recording a user message, extended by triggered skills, the user suffix
        and `additional_context` (what UserPromptSubmit hooks added)."""
        extended: list[TextContent] = []
        activated: list[str] = []
        if self.agent_context is not None:
            found = self.agent_context.get_user_message_suffix(message, self.activated_skills)
            if found is not None:
                text, activated = found
                extended.append(text)
                self.activated_skills.extend(activated)
        if additional_context.strip():
            extended.append(TextContent(text=additional_context.strip()))
        return MessageEvent(
            id=event_id or uuid.uuid4().hex,
            source="user",
            llm_message=message,
            activated_skills=activated,
            extended_content=extended,
        )


def _with_project_skills(context: AgentContext | None, working_dir: str) -> AgentContext | None:
    if context is None or not context.load_project_skills:
        return context
    try:
        project = load_project_skills(working_dir)
    except Exception as exc:  # a broken skill folder must not keep the conversation from starting
        logger.warning("Project skills not loaded from %s: %s", working_dir, exc)
        return context
    if not project:
        return context
    disabled = set(context.disabled_skills)
    skills = [s for s in merge_skills_by_name(project, context.skills) if s.name not in disabled]
    return context.model_copy(update={"skills": skills})
