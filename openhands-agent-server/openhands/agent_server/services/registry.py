"""`ConversationService`: every conversation the server holds, created or reloaded from disk."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import uuid
from pathlib import Path
from typing import Any

from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.conversations.models import (
    ConversationInfo,
    StartConversationRequest,
)
from openhands.agent_server.errors import BadRequestError, InvalidRequestError, NotFoundError
from openhands.agent_server.events.service import EventService
from openhands.agent_server.models import BrokenConversation
from openhands.sdk.agent import Agent
from openhands.sdk.conversation import ConversationExecutionStatus, LocalConversation
from openhands.sdk.conversation.state import BASE_STATE_FILE
from openhands.sdk.tool.registry import InvalidToolSpecError
from openhands.sdk.workspace import LocalWorkspace
from pydantic import ValidationError

logger = logging.getLogger(__name__)

CLOSE_GRACE_SECONDS = 2.0
"""On shutdown, time for the bookkeeping around the step wait (goal status, pause, close)."""


class ConversationService:
    """Holds one `EventService` per conversation and persists them under one folder."""

    def __init__(self, config: ServerConfig, pool: BlockingPool) -> None:
        self.config = config
        self.pool = pool
        self.path = config.conversations_path
        self._services: dict[uuid.UUID, EventService] = {}
        self._creating: dict[uuid.UUID, asyncio.Future[EventService]] = {}
        self.broken: list[BrokenConversation] = []

    # -- start-up and shut-down -------------------------------------------------------------

    async def load_all(self) -> None:
        """Reload every persisted conversation; a broken one is reported and skipped."""
        self.path.mkdir(parents=True, exist_ok=True)
        loop = asyncio.get_running_loop()
        for folder in sorted(self.path.iterdir()):
            if not folder.is_dir() or folder.name.startswith("."):
                continue
            try:
                conversation = await self.pool.run(self._reload, folder)
                if conversation is None:
                    continue
                service = EventService(conversation, self.pool, loop)
                service.goal.load_status()
                event = service.goal.recover_after_restart()
                if event is not None:
                    await service.append_event(event)
            except Exception as exc:
                message = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                logger.error(
                    "Skipping conversation %s: it could not be loaded (%s)", folder, message
                )
                self.broken.append(BrokenConversation(id=folder.name, error=message))
                continue
            self._services[service.id] = service
        logger.info("Loaded %d conversations from %s", len(self._services), self.path)

    def _reload(self, folder: Path) -> LocalConversation | None:
        state_file = folder / BASE_STATE_FILE
        if not state_file.exists():
            if any(folder.iterdir()):
                raise FileNotFoundError(f"{state_file} is missing")
            return None
        conversation_id = uuid.UUID(hex=folder.name)
        data: dict[str, Any] = json.loads(state_file.read_text())
        agent = Agent.model_validate(data["agent"])
        self.config.fill_llm(agent.llm)
        return LocalConversation(
            agent,
            LocalWorkspace.model_validate(data["workspace"]),
            persistence_dir=self.path,
            conversation_id=conversation_id,
            max_iteration_per_run=int(data.get("max_iterations", 500)),
        )

    async def close_all(
        self, reason: str = "server shutdown", *, run_wait: float | None = None
    ) -> int:
        """Interrupt goals, pause agents and release every conversation.

        With `run_wait` (server shutdown), a step still running that many seconds after its
        pause (an LLM call, a tool) is left behind, and the whole close takes at most
        `run_wait + CLOSE_GRACE_SECONDS`. Returns how many conversations were left running.
        """
        services = list(self._services.values())
        self._services.clear()
        if not services:
            return 0
        if run_wait is None:
            closes = [asyncio.ensure_future(service.close(reason)) for service in services]
            _, pending = await asyncio.wait(closes)
        else:
            closes = [
                asyncio.ensure_future(service.close(reason, run_wait=run_wait, leave_running=True))
                for service in services
            ]
            _, pending = await asyncio.wait(closes, timeout=run_wait + CLOSE_GRACE_SECONDS)
        left = 0
        for service, close in zip(services, closes, strict=True):
            if close in pending:
                close.cancel()
                logger.warning("closing conversation %s did not finish in time", service.id)
                left += 1
            elif close.exception() is not None:
                logger.error("closing conversation %s failed: %s", service.id, close.exception())
            elif close.result() is False:
                left += 1
        return left

    # -- queries ----------------------------------------------------------------------------

    def get(self, conversation_id: uuid.UUID) -> EventService:
        """The live conversation, or NotFoundError."""
        service = self._services.get(conversation_id)
        if service is None:
            raise NotFoundError(f"Conversation {conversation_id} does not exist.")
        return service

    def find(self, conversation_id: uuid.UUID) -> EventService | None:
        """The live conversation, or None."""
        return self._services.get(conversation_id)

    def count(self, status: ConversationExecutionStatus | None = None) -> int:
        """How many conversations there are (with `status`, if given)."""
        if status is None:
            return len(self._services)
        return sum(
            1 for s in self._services.values() if s.conversation.state.execution_status == status
        )

    def search(
        self, *, page_id: str | None, limit: int, status: ConversationExecutionStatus | None
    ) -> tuple[list[ConversationInfo], str | None]:
        """One page of conversations, newest first, and the id starting the next page."""
        services = [
            s
            for s in self._services.values()
            if status is None or s.conversation.state.execution_status == status
        ]
        services.sort(key=lambda s: (s.conversation.state.created_at, s.id.hex), reverse=True)
        start = 0
        if page_id:
            ids = [s.id.hex for s in services]
            try:
                start = ids.index(uuid.UUID(page_id).hex)
            except ValueError as exc:
                raise BadRequestError(
                    f"page_id {page_id!r} is not a conversation in this listing; pass the "
                    "next_page_id of a previous page, or omit it for the first page."
                ) from exc
        page = services[start : start + limit]
        rest = services[start + limit : start + limit + 1]
        return [s.info() for s in page], (rest[0].id.hex if rest else None)

    @property
    def running_goals(self) -> int:
        """How many goal loops are active."""
        return sum(1 for s in self._services.values() if s.goal.active)

    # -- commands ---------------------------------------------------------------------------

    async def start(self, request: StartConversationRequest) -> tuple[EventService, bool]:
        """Create the conversation (True) or return the existing one with that id (False)."""
        conversation_id = request.conversation_id or uuid.uuid4()
        existing = self._services.get(conversation_id)
        if existing is not None:
            return existing, False
        pending = self._creating.get(conversation_id)
        if pending is not None:
            return await asyncio.shield(pending), False
        future: asyncio.Future[EventService] = asyncio.get_running_loop().create_future()
        self._creating[conversation_id] = future
        try:
            service = await self._create(conversation_id, request)
            self._services[conversation_id] = service
            future.set_result(service)
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # mark it retrieved: waiters (if any) get it, nobody else must
            raise
        except BaseException:
            future.cancel()
            raise
        finally:
            del self._creating[conversation_id]
        if request.initial_message is not None:
            await service.send_message(request.initial_message.to_message(), run=True)
        return service, True

    async def _create(
        self, conversation_id: uuid.UUID, request: StartConversationRequest
    ) -> EventService:
        workspace = request.workspace or LocalWorkspace(
            working_dir=str(self.config.workspace_path / conversation_id.hex)
        )
        self.config.fill_llm(request.agent.llm)
        try:
            conversation = await self.pool.run(
                LocalConversation,
                request.agent,
                workspace,
                persistence_dir=self.path,
                conversation_id=conversation_id,
                max_iteration_per_run=request.max_iterations,
                hook_config=request.hook_config,
            )
        except InvalidToolSpecError as exc:
            raise InvalidRequestError(str(exc), ("body", "agent", "tools")) from exc
        except (ValidationError, ValueError, OSError) as exc:
            raise InvalidRequestError(
                f"The conversation could not be created: {exc}", ("body",)
            ) from exc
        return EventService(conversation, self.pool, asyncio.get_running_loop())

    async def delete(self, conversation_id: uuid.UUID) -> None:
        """Stop and forget a conversation, and remove its folder."""
        service = self.get(conversation_id)
        del self._services[conversation_id]
        await service.close("conversation deleted")
        folder = self.path / conversation_id.hex
        await self.pool.run(shutil.rmtree, folder, True)
