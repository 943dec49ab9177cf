"""`ChatGateway`: an OpenAI-style chat request as a turn of an agent conversation.

The model a request names is a stored LLM profile: `openhands_<profile>` runs the agent once
on the request's last user message; `openhands_goal_<profile>` (or an `openhands_goal` in the
body) makes it a goal, answered only once the judge, and the verify command if one is given,
agree that the objective is done. A request without a conversation id starts a new
conversation (the agent the stored agent settings describe, as `OpenHandsAgentSettings`, with
the profile's LLM and the request's system messages added to its system prompt; earlier
turns of the request as context); with one it continues that conversation. The turn is then followed by `TurnWatch` (gateway_watch.py).

Goals start through the live conversation's goal API (`start_goal_loop`, the judge kept by
`goal_judge`), exactly as `POST /goal` does, so every goal rule stays the goal driver's.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field

from openhands.agent_server.config import ServerConfig
from openhands.agent_server.errors import InvalidRequestError, NotFoundError
from openhands.agent_server.goals.judges import JUDGE_USAGE_ID
from openhands.agent_server.services.credentials import goal_judge
from openhands.agent_server.services.gateway_watch import TurnWatch
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.agent import Agent
from openhands.sdk.context import AgentContext
from openhands.sdk.conversation.goal import GoalLimits, GoalRequest, InvalidGoalError
from openhands.sdk.llm import LLM, Message, TextContent
from openhands.sdk.llm.llm import SECRET_FIELDS
from openhands.sdk.settings import OpenHandsAgentSettings
from openhands.sdk.wire import StartConversationRequest
from pydantic import ValidationError

logger = logging.getLogger(__name__)

MODEL_PREFIX = "openhands_"
"""A gateway model is `openhands_<profile>`."""

GOAL_MODEL_PREFIX = "openhands_goal_"
"""`openhands_goal_<profile>` runs every request as a goal (default limits)."""

DEFAULT_PROFILE = "default"
"""`openhands_default` (and `openhands_goal_default`) is the server's default LLM: the stored
settings' LLM, else LLM_MODEL (with LLM_BASE_URL and LLM_API_KEY), unless a stored profile
is named `default` (then it is that profile)."""

SHOWN_MODEL_CHARS = 200
"""How much of an unknown model name an error repeats (a client may send megabytes)."""


@dataclass(frozen=True)
class GoalSpec:
    """A goal a gateway request carries."""

    objective: str
    verify: str | None = None
    limits: GoalLimits = field(default_factory=GoalLimits)
    judge_profile: str | None = None

    def request(self) -> GoalRequest:
        """The goal's start request; 422 naming the `openhands_goal` field that is wrong."""
        try:
            return GoalRequest.checked(
                objective=self.objective,
                verify=self.verify,
                max_iterations=self.limits.max_iterations,
                max_cost=self.limits.max_cost,
                time_limit=self.limits.time_limit,
            )
        except InvalidGoalError as exc:
            field = exc.field or "objective"
            raise InvalidRequestError(str(exc), ("body", "openhands_goal", field)) from exc


@dataclass(frozen=True)
class Turn:
    """What one chat request asks: the profile, the message, and whether it is a goal."""

    profile: str
    message: Message
    context: str = ""
    """Earlier turns of the request, sent first to a new conversation (no run)."""
    system_text: str = ""
    goal: GoalSpec | None = None


class ChatGateway:
    """Runs chat requests as conversation turns on this server."""

    def __init__(
        self, conversations: ConversationRegistry, stores: ServerSettings, config: ServerConfig
    ) -> None:
        self._conversations = conversations
        self._stores = stores
        self._config = config

    # -- models -----------------------------------------------------------------------------

    def model_ids(self) -> list[str]:
        """Every model a client may name: `openhands_<p>` and `openhands_goal_<p>` per profile,
        and `openhands_default` when the server has a default LLM."""
        names = self._stores.profiles.names()
        if self.default_llm() is not None:
            names = [*names, DEFAULT_PROFILE]
        ids = {f"{MODEL_PREFIX}{name}" for name in names}
        ids |= {f"{GOAL_MODEL_PREFIX}{name}" for name in names}
        return sorted(ids)

    def resolve_model(self, model: str) -> tuple[str, bool]:
        """(profile, goal) for a model name; NotFoundError naming the models there are.

        A profile whose own name starts with `goal_` wins over the goal reading.
        """
        profiles = self._stores.profiles

        def exists(name: str) -> bool:
            if profiles.find(name) is not None:
                return True
            return name == DEFAULT_PROFILE and self.default_llm() is not None

        if model.startswith(MODEL_PREFIX):
            rest = model.removeprefix(MODEL_PREFIX)
            if exists(rest):
                return rest, False
            if model.startswith(GOAL_MODEL_PREFIX):
                profile = model.removeprefix(GOAL_MODEL_PREFIX)
                if exists(profile):
                    return profile, True
        known = ", ".join(self.model_ids()) or "none: save an LLM profile (POST /api/profiles/NAME)"
        shown = model if len(model) <= SHOWN_MODEL_CHARS else model[:SHOWN_MODEL_CHARS] + "…"
        raise NotFoundError(
            f"The model {shown!r} does not exist here. Models: {known} (GET /v1/models)."
        )

    # -- turns ------------------------------------------------------------------------------

    async def begin(self, turn: Turn, conversation_id: uuid.UUID | None) -> TurnWatch:
        """Start the turn (create or continue the conversation, send, run or start the goal).

        Errors come before anything changes where they can: an unknown conversation (404),
        a busy one (409), a goal that cannot start (409, 422).
        """
        if conversation_id is None:
            live = await self._create(turn)
        else:
            live = await self._conversations.get(conversation_id)
        start = len(live.events)
        config = self._config
        if turn.goal is not None:
            await self._start_goal(live, turn.goal)
            run = None
        else:
            await live.send_message(turn.message, run=True)
            run = live.current_run()
        return TurnWatch(
            live,
            start,
            run=run,
            keepalive=config.gateway_keepalive_seconds,
            wait_seconds=config.gateway_wait_seconds,
        )

    def default_llm(self) -> LLM | None:
        """The server's default LLM without its key (the conversation's credentials fill in
        the stored one), or None when it has none: the stored settings' LLM, else
        LLM_MODEL."""
        stored = self._stores.settings.llm()
        if stored is not None and stored.model:
            return stored.model_copy(update=dict.fromkeys(SECRET_FIELDS))
        if self._config.llm_model:
            return LLM(model=self._config.llm_model, base_url=self._config.llm_base_url)
        return None

    async def _create(self, turn: Turn) -> LiveConversation:
        llm = self._turn_llm(turn.profile)
        request = StartConversationRequest(agent=self._agent(llm, turn.system_text))
        conversation_id, _ = await self._conversations.start(request)
        live = await self._conversations.get(conversation_id)
        if turn.context:
            await live.send_message(Message(role="user", content=[TextContent(text=turn.context)]))
        return live

    def _turn_llm(self, profile: str) -> LLM:
        """The LLM of a new conversation: the profile's, or the server's default LLM."""
        if profile == DEFAULT_PROFILE and self._stores.profiles.find(profile) is None:
            default = self.default_llm()
            if default is not None:
                return default
        return self._stores.llm_defaults.profile_llm(profile, usage_id=None, field=("model",))

    def _agent(self, llm: LLM, system_text: str) -> Agent:
        """The agent the stored agent settings describe (`OpenHandsAgentSettings`: tools, MCP
        servers, context, condenser), with the profile's LLM and the request's system text."""
        stored = self._stores.settings.settings.agent_settings
        data = {
            name: getattr(stored, name)
            for name in OpenHandsAgentSettings.model_fields
            if name in stored.model_fields_set or name in (stored.model_extra or {})
        }
        try:
            settings = OpenHandsAgentSettings.model_validate({**data, "llm": llm})
        except ValidationError as exc:
            logger.warning("the stored agent settings do not describe an agent: %s", exc)
            settings = OpenHandsAgentSettings(llm=llm)
        if system_text:
            context = settings.agent_context or AgentContext()
            suffix = "\n\n".join(
                text for text in (context.system_message_suffix, system_text) if text
            )
            settings = settings.model_copy(
                update={
                    "agent_context": context.model_copy(update={"system_message_suffix": suffix})
                }
            )
        return settings.create_agent()

    async def _start_goal(self, live: LiveConversation, goal: GoalSpec) -> None:
        requested = None
        if goal.judge_profile is not None:
            requested = self._stores.llm_defaults.profile_llm(
                goal.judge_profile,
                usage_id=JUDGE_USAGE_ID,
                field=("openhands_goal", "judge_profile"),
            )
        conversations = self._conversations
        async with goal_judge(
            conversations.credentials, conversations.pools.controls, live.id, requested
        ) as judge:
            await live.start_goal_loop(goal.request(), judge_llm=judge)


def goal_objective(text: str, given: str | None) -> str:
    """The objective of a gateway goal: the one given, else the user's message text."""
    objective = (given or text).strip()
    if not objective:
        raise InvalidRequestError(
            "a goal needs an objective: the last user message has no text, and "
            "openhands_goal.objective is not given",
            ("body", "messages"),
        )
    return objective
