"""What a client changes on a live conversation besides runs and goals: interrupt it, name it,
move its HEAD, give it secrets, condense its history, read its final answer.

Each change is on disk before it is acknowledged, or refused leaving everything as it was:
a title is saved with the configuration (and put back if the write fails), secrets are
sealed into the conversation's folder before its agent sees them.
"""

from __future__ import annotations

import logging

from openhands.agent_server.errors import BadRequestError, ConflictError, NotFoundError
from openhands.agent_server.services.conversation_secrets import ConversationSecrets
from openhands.agent_server.services.live import LiveConversation
from openhands.sdk.conversation import ConversationAlreadyRunningError
from openhands.sdk.conversation.errors import CondenserUnavailableError, UnknownEventError
from openhands.sdk.conversation.response_utils import get_agent_final_response
from openhands.sdk.secret import SecretSource

logger = logging.getLogger(__name__)


async def interrupt(live: LiveConversation) -> None:
    """Stop the run now rather than after its step (an LLM reply still on its way is
    dropped); without a run, the same as pause. The run ends `paused`."""
    live.ensure_open()

    def stop() -> None:
        live.request_pause()  # also catches a run that has not reached its first step
        live.conversation.interrupt()

    await live.control(stop)


async def update_metadata(
    live: LiveConversation, *, title: str | None, tags: dict[str, str] | None
) -> None:
    """Set the title and/or replace the tags; saved before the answer, unchanged on failure."""
    live.ensure_open()
    state = live.conversation.state

    def apply() -> None:
        with state.lock:
            before = (state.title, dict(state.tags))
            if title is not None:
                state.title = title
            if tags is not None:
                state.tags = dict(tags)
            try:
                state.save_config()
            except BaseException:
                state.title, state.tags = before
                raise

    await live.control(apply)


async def navigate(live: LiveConversation, event_id: str | None) -> None:
    """Move the HEAD to `event_id` (None: an empty tree); 404 for an unknown event, 409 during
    a run."""
    live.ensure_open()
    await live.settle()
    try:
        await live.control(live.conversation.navigate_to, event_id)
    except UnknownEventError as exc:
        raise NotFoundError(str(exc), code="unknown_event") from None
    except ConversationAlreadyRunningError as exc:
        raise ConflictError(str(exc)) from None


async def add_secrets(
    live: LiveConversation,
    secrets: ConversationSecrets | None,
    sources: dict[str, SecretSource],
) -> None:
    """Add (or replace) secrets of a conversation: sealed into its folder together with the
    ones it has (so a reopen or a fork has them too), then given to its agent's commands."""
    live.ensure_open()
    folder = live.conversation.state.folder
    resolved = dict(sources)
    if secrets is not None and folder is not None:

        def keep() -> dict[str, SecretSource]:
            kept = secrets.restore_sources(folder)
            secrets.keep(folder, {**kept, **sources})
            return secrets.resolve(sources)

        resolved = await live.control(keep)
    await live.control(live.conversation.update_secrets, resolved)


async def agent_final_response(live: LiveConversation) -> str:
    """The agent's last answer on the active branch ("" if none yet)."""
    live.ensure_open()
    state = live.conversation.state
    return await live.control(lambda: get_agent_final_response(state.active_branch()))


async def condense(live: LiveConversation) -> None:
    """Condense the history now with the agent's condenser (`LocalConversation.condense`).
    409 (code `no_condenser`) when the agent has no condenser that condenses on request, 409
    while a run is in progress (condense between runs)."""
    live.ensure_open()
    await live.settle()
    if live.is_busy:
        raise ConflictError(
            f"Conversation {live.id} is running; condense it once the run has ended (pause it)."
        )
    try:
        await live.blocking(live.conversation.condense)
    except CondenserUnavailableError as exc:
        raise ConflictError(str(exc), code=CondenserUnavailableError.code) from None
    except ConversationAlreadyRunningError as exc:
        raise ConflictError(str(exc)) from None


async def load_plugin(live: LiveConversation, plugin_ref: str) -> None:
    """Load a plugin (a folder on the server, a git URL, `github:owner/repo`) into the
    conversation between runs: its skills, MCP servers and hooks, saved with it. 400 for a
    plugin that cannot be fetched or read, 409 during a run."""
    from openhands.sdk.extensions.errors import ExtensionError

    live.ensure_open()
    await live.settle()
    if live.is_busy:
        raise ConflictError(
            f"Conversation {live.id} is running; load the plugin once the run has ended."
        )
    try:
        await live.control(live.conversation.load_plugin, plugin_ref)
    except ConversationAlreadyRunningError as exc:
        raise ConflictError(str(exc)) from None
    except (ExtensionError, OSError, ValueError) as exc:
        raise BadRequestError(f"The plugin {plugin_ref!r} cannot be loaded: {exc}") from None
