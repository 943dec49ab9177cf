"""`ConversationRegistry`: every conversation the server holds, opened only when needed.

At start-up it reads the stored conversations' index (`summary_index.py`: one file, each
entry checked against its files' stamps; only conversations written since, or unknown to it,
have their summaries read, never their events) into the `Catalog`, and opens only those a
dead server left in the middle of something: a run (the SDK records `RunLost` on reopen) or a
goal (recorded `interrupted`, reason "server restart"). Any other conversation is opened
(`LocalConversation` plus its `LiveConversation`) by the first request that needs it;
listings, counts and reads of one answer from the catalog until then (a page reads the
summaries it shows). At shutdown the index is written again. Each command either completes or leaves the conversation as it was: a create that
fails leaves no folder, a delete that fails leaves the conversation listed and usable, and a
refusing disk is the SDK's `StorageError` (the edge answers 503, or 507 when it is full).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from pathlib import Path
from typing import Any

from openhands.agent_server.blocking import Pools
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.errors import BadRequestError, ConflictError, NotFoundError
from openhands.agent_server.goals.backend import GoalBackend
from openhands.agent_server.services.catalog import BrokenConversation, Catalog
from openhands.agent_server.services.conversation_secrets import ConversationSecrets
from openhands.agent_server.services.credentials import Credentials, ServerDefaults
from openhands.agent_server.services.extensions import extended_agent
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.sandboxing import refuse_unsafe_workspace
from openhands.agent_server.services.storage import (
    create_conversation,
    load_summaries,
    move_to_trash,
    open_conversation,
    read_goal_statuses,
    remove_folders,
)
from openhands.agent_server.services.store_scan import index_at_shutdown, scan_store
from openhands.agent_server.services.workspace_claims import (
    WorkspaceClaims,
    keep_reason,
    workspace_of,
)
from openhands.sdk.contracts import ProfileSource
from openhands.sdk.conversation import (
    ConversationConfig,
    ConversationExecutionStatus,
    LocalConversation,
)
from openhands.sdk.conversation.errors import UnknownEventError
from openhands.sdk.errors import StorageError
from openhands.sdk.wire import (
    ConversationInfo,
    DeleteConversationResponse,
    KeptFolder,
    StartConversationRequest,
)
from openhands.sdk.workspace import LocalWorkspace

logger = logging.getLogger(__name__)

Status = ConversationExecutionStatus

CLOSE_GRACE_SECONDS = 2.0
"""On shutdown, time for the bookkeeping around the step wait (goal status, pause, close)."""


class ConversationRegistry:
    """The conversations under one folder: stored ones by summary, open ones live."""

    def __init__(
        self,
        config: ServerConfig,
        pools: Pools,
        credentials: Credentials | None = None,
        *,
        secrets: ConversationSecrets | None = None,
        profiles: ProfileSource | None = None,
        goal_backend: GoalBackend | None = None,
    ) -> None:
        """`secrets` keeps the secret sources conversations are created with (else: none);
        `profiles` is where their LLM profiles are loaded (`switch_profile`, `ask_oracle`;
        else the server user's `~/.openhands/profiles`); `goal_backend` interprets every
        conversation's goal steps (None: the built-in driver)."""
        self.config = config
        self.pools = pools
        self.path = config.conversations_path
        self.credentials: Credentials = credentials or ServerDefaults(config)
        self.secrets = secrets
        self.profiles = profiles
        self.goal_backend = goal_backend
        self.catalog = Catalog()
        self._live: dict[uuid.UUID, LiveConversation] = {}
        self._opening: dict[uuid.UUID, asyncio.Future[LiveConversation]] = {}
        self._creating: dict[uuid.UUID, asyncio.Future[None]] = {}
        self._deleting: set[uuid.UUID] = set()
        self._disposals: set[asyncio.Future[None]] = set()
        self._claims = WorkspaceClaims()  # working dirs hidden from other sandboxes

    # -- start-up and shut-down -------------------------------------------------------------

    async def load_all(self) -> None:
        """Read the stored conversations' index (and the summaries it lacks); open those a
        dead server left busy."""
        scan = await scan_store(self.path, self.pools.controls)
        self.catalog.broken.extend(scan.broken)
        self.catalog.broken.sort(key=lambda entry: entry.id)
        self.catalog.add_stored(scan.entries)
        self._claims.claim_all(scan.entries)
        for cleanup in scan.cleanups:
            self._dispose_later(cleanup())
        for entry in scan.entries:
            if entry.left_busy:
                try:
                    await self.get(entry.id)
                except Exception as exc:  # a refusing disk: it stays listed, opened on demand
                    logger.error("conversation %s could not be recovered: %s", entry.id, exc)
        logger.info(
            "Found %d conversations in %s (%d read, the others from its index; %d opened to "
            "record an interrupted run or goal)",
            len(self.catalog),
            self.path,
            scan.read,
            len(self._live),
        )

    async def close_all(
        self, reason: str = "server shutdown", *, run_wait: float | None = None
    ) -> int:
        """Interrupt goals, pause agents and release every open conversation.

        With `run_wait` (server shutdown), a step still running that many seconds after its
        pause (an LLM call, a tool) is left behind, and the whole close takes at most
        `run_wait + CLOSE_GRACE_SECONDS`. Returns how many conversations were left running.
        """
        services = list(self._live.values())
        self._live.clear()
        self._claims.release_all()
        pending_disposals = list(self._disposals)
        if not services and not pending_disposals:
            return 0
        try:
            return await self._close(services, pending_disposals, reason, run_wait)
        finally:
            closed = [service.id for service in services]
            await index_at_shutdown(self.path, self.pools.controls, closed, self.catalog.entries())

    async def _close(
        self,
        services: list[LiveConversation],
        pending_disposals: list[asyncio.Future[None]],
        reason: str,
        run_wait: float | None,
    ) -> int:
        if run_wait is None:
            closes = [asyncio.ensure_future(service.close(reason)) for service in services]
            timeout = None
        else:
            closes = [
                asyncio.ensure_future(service.close(reason, run_wait=run_wait, leave_running=True))
                for service in services
            ]
            timeout = run_wait + CLOSE_GRACE_SECONDS
        _, pending = await asyncio.wait([*closes, *pending_disposals], timeout=timeout)
        # A deleted conversation whose step outlived the bound is abandoned with its thread.
        abandoned = [disposal for disposal in pending_disposals if disposal in pending]
        for disposal in abandoned:
            disposal.cancel()
        left = len(abandoned)
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

    @property
    def broken(self) -> list[BrokenConversation]:
        """Conversations skipped because their files are damaged."""
        return self.catalog.broken

    @property
    def open_count(self) -> int:
        """How many conversations are open (loaded in memory)."""
        return len(self._live)

    @property
    def running_goals(self) -> int:
        """How many goal loops are active."""
        return sum(1 for s in self._live.values() if s.goal.active)

    def open_conversations(self) -> list[LiveConversation]:
        """The conversations open now (nothing is opened)."""
        return list(self._live.values())

    def find(self, conversation_id: uuid.UUID) -> LiveConversation | None:
        """The conversation if it is open, else None (nothing is opened)."""
        return self._live.get(conversation_id)

    def __contains__(self, conversation_id: object) -> bool:
        return conversation_id in self.catalog and conversation_id not in self._deleting

    async def get(self, conversation_id: uuid.UUID) -> LiveConversation:
        """The open conversation, opening it first if needed; NotFoundError if unknown."""
        live = self._live.get(conversation_id)
        if live is not None:
            return live
        pending = self._opening.get(conversation_id)
        if pending is not None:
            return await asyncio.shield(pending)
        if self.catalog.entry(conversation_id) is None or conversation_id in self._deleting:
            raise NotFoundError(f"Conversation {conversation_id} does not exist.")
        future: asyncio.Future[LiveConversation] = asyncio.get_running_loop().create_future()
        self._opening[conversation_id] = future
        try:
            live = await self._open(conversation_id)
        except BaseException as exc:
            if isinstance(exc, Exception):
                future.set_exception(exc)
                future.exception()  # waiters (if any) get it; nobody else must
            else:
                future.cancel()
            raise
        else:
            self._live[conversation_id] = self._hosted(live)
            self.catalog.opened(conversation_id)
            future.set_result(live)
            return live
        finally:
            del self._opening[conversation_id]

    async def info(self, conversation_id: uuid.UUID) -> ConversationInfo:
        """One conversation as clients see it (answered from its summary if it is not open)."""
        return (await self._infos([conversation_id]))[0]

    def count(self, status: Status | None = None) -> int:
        """How many conversations there are (with `status`, if given)."""
        if status is None:
            return len(self.catalog) - len(self._deleting)
        return sum(1 for cid in self.catalog.newest_first() if self._status(cid) == status)

    async def search(
        self, *, page_id: str | None, limit: int, status: Status | None
    ) -> tuple[list[ConversationInfo], str | None]:
        """One page of conversations, newest first, and the id starting the next page."""
        start = None
        if page_id:
            start = _parse_id(page_id)
            if start not in self.catalog:
                raise BadRequestError(
                    f"page_id {page_id!r} is not a conversation in this listing; pass the "
                    "next_page_id of a previous page, or omit it for the first page."
                )
        page: list[uuid.UUID] = []
        next_page_id = None
        for cid in self.catalog.newest_first(start):
            if cid in self._deleting or (status is not None and self._status(cid) != status):
                continue
            if len(page) == limit:
                next_page_id = cid.hex
                break
            page.append(cid)
        return await self._infos(page, skip_gone=True), next_page_id

    def _status(self, conversation_id: uuid.UUID) -> Status | None:
        live = self._live.get(conversation_id)
        if live is not None:
            return live.conversation.state.execution_status
        entry = self.catalog.entry(conversation_id)
        return None if entry is None else entry.execution_status

    async def _infos(
        self, ids: list[uuid.UUID], *, skip_gone: bool = False
    ) -> list[ConversationInfo]:
        """What clients see of each conversation; NotFoundError for one that is unknown (left
        out with `skip_gone`: a listing whose conversation turned out gone or damaged)."""
        unread = self.catalog.unread([cid for cid in ids if cid not in self._live])
        if unread:
            await self._read_summaries(unread)
        lookups = [
            cid for cid in ids if cid not in self._live and self.catalog.needs_goal_lookup(cid)
        ]
        if lookups:
            found = await self.pools.controls.run(read_goal_statuses, self.path, lookups)
            for cid, status in found.items():
                self.catalog.set_goal(cid, status)
        infos: list[ConversationInfo] = []
        for cid in ids:
            live = self._live.get(cid)
            summary = self.catalog.summary(cid)
            if live is not None:
                info = live.info()
            elif summary is not None and cid not in self._deleting:
                info = self.catalog.stored_info(summary)
            elif skip_gone:
                continue
            else:
                raise NotFoundError(f"Conversation {cid} does not exist.")
            children = self.catalog.children(cid)
            info.sub_conversation_ids = [c for c in children if c not in self._deleting]
            infos.append(info)
        return infos

    def working_dir_of(self, conversation_id: uuid.UUID) -> str | None:
        """The working directory of a conversation (open or not), None if it is unknown."""
        live = self._live.get(conversation_id)
        if live is not None:
            return live.working_dir
        entry = self.catalog.entry(conversation_id)
        if entry is None or conversation_id in self._deleting:
            return None
        return entry.working_dir

    async def _read_summaries(self, ids: list[uuid.UUID]) -> None:
        """Read the summaries of stored conversations a listing shows (a refusing disk raises);
        one found damaged or gone is dropped from the catalog."""
        summaries, broken = await self.pools.controls.run(load_summaries, self.path, ids)
        for summary in summaries:
            self.catalog.set_summary(summary)
        for entry in broken:
            self.catalog.remove(uuid.UUID(hex=entry.id))
            self.catalog.broken.append(entry)
        # Neither read nor damaged: its folder went away behind the server's back.
        accounted = {summary.id.hex for summary in summaries} | {entry.id for entry in broken}
        for cid in ids:
            if cid.hex not in accounted:
                self.catalog.remove(cid)

    # -- opening ----------------------------------------------------------------------------

    async def _open(self, conversation_id: uuid.UUID) -> LiveConversation:
        loop = asyncio.get_running_loop()
        try:
            live = await self.pools.controls.run_to_completion(
                open_conversation,
                conversation_id,
                self.path,
                self.credentials,
                self.pools,
                loop,
                self.goal_backend,
            )
        except StorageError:
            raise
        except NotFoundError:
            self.catalog.remove(conversation_id)  # its folder went away behind the server's back
            raise
        except ValueError as exc:  # damaged files: skipped, as at start-up
            self.catalog.mark_broken(conversation_id, exc)
            raise NotFoundError(
                f"Conversation {conversation_id} could not be loaded: its files are damaged "
                f"({type(exc).__name__}); see broken_conversations in /server_info."
            ) from exc
        if self.secrets is not None:
            try:
                sources = await self.pools.controls.run(
                    self.secrets.restore, self.path / conversation_id.hex
                )
            except BaseException:
                await self.pools.controls.run_to_completion(live.conversation.close)
                raise
            if sources:
                live.conversation.update_secrets(sources)
        recovery = live.goal.recover_after_restart()
        if recovery is not None:
            try:
                await live.append_event(recovery)
            except BaseException:
                await self.pools.controls.run_to_completion(live.conversation.close)
                raise
        return live

    # -- commands ---------------------------------------------------------------------------

    async def start(
        self, request: StartConversationRequest, *, worktree_git_dir: str | None = None
    ) -> tuple[uuid.UUID, bool]:
        """Create the conversation (True) or find the existing one with that id (False).

        `worktree_git_dir`: its working directory is in a git worktree the server just made
        for it in its default folder (`services/worktrees.py`), removed with it; git's folder
        for that worktree.
        """
        conversation_id = request.conversation_id or uuid.uuid4()
        if conversation_id in self._deleting:
            raise ConflictError(f"Conversation {conversation_id} is being deleted; retry later.")
        if conversation_id in self:
            return conversation_id, False
        pending = self._creating.get(conversation_id)
        if pending is not None:
            await asyncio.shield(pending)
            return conversation_id, False
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._creating[conversation_id] = future
        try:
            live = await self._create(conversation_id, request, worktree_git_dir)
            self._live[conversation_id] = self._hosted(live)
            state = live.conversation.state
            self.catalog.add(conversation_id, state.created_at, parent=state.parent_conversation_id)
            self._claims.claim(conversation_id, live.working_dir, state.worktree_git_dir)
            future.set_result(None)
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
            try:
                await live.send_message(request.initial_message.to_message(), run=True)
            except StorageError:
                # Not created after all: a failed create leaves nothing behind.
                await self._delete(conversation_id)
                raise
        return conversation_id, True

    async def fork(
        self,
        source_id: uuid.UUID,
        *,
        title: str | None,
        tags: dict[str, str] | None,
        fork_id: uuid.UUID | None = None,
        reset_metrics: bool = True,
        from_event_id: str | None = None,
    ) -> uuid.UUID:
        """A new conversation with a copy of `source_id`'s history (idle; fresh usage unless
        `reset_metrics` is false), under `fork_id` (default: a new id), copied up to
        `from_event_id` if given.

        Its keys are the source's, sealed for it like a created conversation's.
        """
        source = await self.get(source_id)
        fork_id = fork_id or uuid.uuid4()
        if fork_id in self or fork_id in self._creating:
            raise ConflictError(f"Conversation {fork_id} already exists; fork under another id.")
        conversation = source.conversation
        self.credentials.new_conversation(fork_id, conversation.agent)

        def make() -> LocalConversation:
            try:
                fork = conversation.fork(
                    conversation_id=fork_id,
                    title=title,
                    tags=tags,
                    reset_metrics=reset_metrics,
                    from_event_id=from_event_id,
                )
            except UnknownEventError as exc:
                raise NotFoundError(str(exc)) from None
            try:
                self.credentials.created(fork_id)
                if self.secrets is not None:
                    self.secrets.copy(self.path / source_id.hex, self.path / fork_id.hex)
            except BaseException:
                fork.close()
                remove_folders(self.path / fork_id.hex)
                raise
            return fork

        try:
            fork = await self.pools.controls.run_to_completion(make)
        except BaseException:
            self.credentials.forget(fork_id)
            raise
        self._live[fork_id] = self._hosted(self._live_of(fork))
        self.catalog.add(fork_id, fork.state.created_at, parent=fork.state.parent_conversation_id)
        self._claims.claim(fork_id, fork.workspace.working_dir, fork.state.worktree_git_dir)
        return fork_id

    async def _create(
        self,
        conversation_id: uuid.UUID,
        request: StartConversationRequest,
        worktree_git_dir: str | None = None,
    ) -> LiveConversation:
        # The server's OH_SANDBOX decides where the agent runs, not the request.
        workspace = (
            request.workspace.model_copy(update={"sandbox": None})
            if request.workspace is not None
            else LocalWorkspace(working_dir=str(self.default_workspace(conversation_id)))
        )
        if request.workspace is not None:
            refuse_unsafe_workspace(workspace.working_dir, ("body", "workspace", "working_dir"))
        agent, hook_config = request.agent, request.hook_config
        if request.plugins or request.client_tools:
            agent, hook_config = await self.pools.controls.run_to_completion(
                extended_agent, request
            )
        config = ConversationConfig(
            agent=agent,
            workspace=workspace,
            max_iterations=request.max_iterations,
            hook_config=hook_config,
            confirmation_policy=request.confirmation_policy,
            security_analyzer=request.security_analyzer,
            parent_conversation_id=request.parent_conversation_id,
            worktree=worktree_git_dir is not None,
            worktree_git_dir=worktree_git_dir,
            created_workspace=worktree_git_dir is not None,
        )
        self.credentials.new_conversation(conversation_id, agent)
        keep_secrets = None
        if request.secrets and self.secrets is not None:
            keep_secrets = functools.partial(
                self.secrets.keep, self.path / conversation_id.hex, dict(request.secrets)
            )
        try:
            conversation = await self.pools.controls.run_to_completion(
                create_conversation,
                config,
                self.path,
                conversation_id,
                credentials=self.credentials,
                after_create=keep_secrets,
            )
        except BaseException:
            self.credentials.forget(conversation_id)
            raise
        # The policy and analyzer are in `config` (its first base_state.json); secrets are
        # sources the conversation resolves when the agent needs them.
        if request.secrets:
            sources = dict(request.secrets)
            if self.secrets is not None:
                sources = self.secrets.resolve(sources)
            conversation.update_secrets(sources)
        return self._live_of(conversation)

    def _live_of(self, conversation: LocalConversation) -> LiveConversation:
        """A conversation made in this process, live (in the event loop's thread)."""
        return LiveConversation(
            conversation, self.pools, asyncio.get_running_loop(), goal_backend=self.goal_backend
        )

    def _hosted(self, live: LiveConversation) -> LiveConversation:
        """`live`, its conversation given the server's own stores (where it loads profiles)."""
        if self.profiles is not None:
            live.conversation.profile_store = self.profiles
        return live

    def default_workspace(self, conversation_id: uuid.UUID) -> Path:
        """The working directory of a conversation created without a workspace."""
        return (self.config.workspace_path / conversation_id.hex).resolve()

    async def delete(self, conversation_id: uuid.UUID) -> DeleteConversationResponse:
        """Remove a conversation, or raise and leave it exactly as it was.

        Its folder is renamed away first (one atomic step: a refusing disk is a
        `StorageError` and nothing else happened); then its goal stops, its agent is paused,
        its sockets close, and its files are removed, and its working directory too when the
        server made it for this conversation (or the one it was forked from) and no other
        conversation uses it. The answer says what was removed and what was kept. A running
        agent's current step is not waited for: that cleanup finishes after it.
        """
        pending: set[asyncio.Future[Any]] = {
            f
            for f in (self._opening.get(conversation_id), self._creating.get(conversation_id))
            if f is not None
        }
        if pending:  # let an open or a create finish first (its own request reports errors)
            await asyncio.wait(pending)
        if conversation_id not in self:
            raise NotFoundError(f"Conversation {conversation_id} does not exist.")
        return await self._delete(conversation_id)

    async def _delete(self, conversation_id: uuid.UUID) -> DeleteConversationResponse:
        live = self._live.get(conversation_id)
        entry = self.catalog.entry(conversation_id)
        if live is not None:
            live.begin_delete()
        self._deleting.add(conversation_id)
        try:
            trash = await self.pools.controls.run_to_completion(
                move_to_trash, self.path, conversation_id
            )
        except BaseException:
            self._deleting.discard(conversation_id)
            if live is not None:
                live.abort_delete()
            raise
        # Done: from here on the conversation is gone for every client.
        self._live.pop(conversation_id, None)
        self.catalog.remove(conversation_id)
        self._deleting.discard(conversation_id)
        self._claims.release(conversation_id)
        answer = DeleteConversationResponse(removed=[str(self.path / conversation_id.hex)])
        workspace = workspace_of(live, entry)
        remove_workspace: Path | None = None
        if workspace is not None:
            root, working_dir = self.config.workspace_path, workspace.working_dir
            reason = keep_reason(workspace, root, self.users_of(working_dir))
            folder = workspace.made_folder(root)
            if reason is None and folder is not None:
                remove_workspace = folder
                answer.removed.append(str(folder))
            elif reason is not None:
                answer.kept.append(KeptFolder(path=working_dir, reason=reason))
        busy = live is not None and (live.is_busy or live.goal.active)
        if live is not None:
            live.pubsub.close()  # sockets hear of it now, before the answer
        cleanup = self._dispose_later(
            self._dispose(
                conversation_id,
                live,
                trash,
                remove_workspace,
                worktree=workspace is not None and workspace.worktree,
            )
        )
        if not busy:
            await asyncio.wait({cleanup})
        return answer

    def working_dirs(self) -> dict[uuid.UUID, str]:
        """Every existing conversation's working directory (open or stored), by id."""
        found = {entry.id: entry.working_dir for entry in self.catalog.entries()}
        found.update((cid, live.working_dir) for cid, live in self._live.items())
        return {cid: folder for cid, folder in found.items() if cid not in self._deleting}

    def users_of(self, working_dir: str) -> list[uuid.UUID]:
        """The conversations (open or stored) that work in `working_dir`."""
        users = [cid for cid, live in self._live.items() if live.working_dir == working_dir]
        users += [entry.id for entry in self.catalog.entries() if entry.working_dir == working_dir]
        return [cid for cid in users if cid not in self._deleting]

    async def _dispose(
        self,
        conversation_id: uuid.UUID,
        live: LiveConversation | None,
        trash: Path | None,
        working_dir: Path | None,
        *,
        worktree: bool = False,
    ) -> None:
        """Release a deleted conversation and remove its files (after its current step): its
        working directory too when given, a git worktree (`worktree`) with git's record of it."""
        try:
            if live is not None:
                await live.discard()
            if worktree and working_dir is not None:
                from openhands.agent_server.services.worktrees import remove_worktree

                await self.pools.controls.run(remove_worktree, working_dir)
                working_dir = None
            await self.pools.controls.run(remove_folders, trash, working_dir)
            self.credentials.forget(conversation_id)
        except Exception:
            logger.exception("cleaning up deleted conversation %s failed", conversation_id)

    def _dispose_later(self, work: object) -> asyncio.Future[None]:
        """Run cleanup work in the background; shutdown waits for it (bounded)."""
        task: asyncio.Future[None] = asyncio.ensure_future(work)  # type: ignore[arg-type]
        self._disposals.add(task)
        task.add_done_callback(self._disposals.discard)
        return task


def _parse_id(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


ConversationService = ConversationRegistry
"""The design's name for the registry (kept importable)."""
