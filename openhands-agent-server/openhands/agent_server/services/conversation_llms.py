"""A live conversation's LLM: switch it (to an LLM or a stored profile) and ask it a question.

A switched LLM's key goes through `Credentials` like a created conversation's: sealed in the
conversation's folder before the switch is acknowledged (so a restart keeps it), or, when the
client sent none, a stored key for the same endpoint filled in. The switch itself is saved
with the conversation's configuration by the SDK (`LocalConversation.switch_llm`).
"""

from __future__ import annotations

from openhands.agent_server.errors import BadRequestError, NotFoundError, UpstreamError
from openhands.agent_server.services.credentials import Credentials
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.conversation.errors import ConversationError
from openhands.sdk.llm import LLM
from openhands.sdk.llm.errors import LLMError


async def switch_llm(live: LiveConversation, credentials: Credentials, llm: LLM) -> None:
    """Drive the agent with `llm` from its next LLM call on (its history is kept)."""
    live.ensure_open()
    conversation = live.conversation
    agent = conversation.agent.model_copy(update={"llm": llm})
    put_back = await live.control(credentials.agent_changed, live.id, agent)
    try:
        await live.control(conversation.switch_llm, agent.llm)
    except BaseException:
        await live.control(put_back)
        raise


async def switch_profile(
    live: LiveConversation, credentials: Credentials, stores: ServerSettings, name: str
) -> None:
    """Switch to the LLM of stored profile `name` (usage_id `profile:<name>`); 404 if unknown."""
    if stores.profiles.find(name) is None:
        known = ", ".join(stores.profiles.names()) or "none"
        raise NotFoundError(
            f"Profile {name!r} not found (profiles: {known}); save one with "
            "POST /api/profiles/{name}.",
            code="unknown_profile",
        )
    llm = stores.llm_defaults.profile_llm(name, usage_id=None, field=("profile_name",))
    await switch_llm(live, credentials, llm)


async def ask_agent(live: LiveConversation, question: str) -> str:
    """The agent's LLM's answer to `question` about the conversation so far; nothing is
    recorded. 502 when the LLM call fails, 400 when it answers no text."""
    live.ensure_open()
    try:
        return await live.blocking(live.conversation.ask_agent, question)
    except LLMError as exc:
        raise UpstreamError(f"The agent's LLM failed to answer: {exc}") from exc
    except ConversationError as exc:
        raise BadRequestError(str(exc)) from exc
