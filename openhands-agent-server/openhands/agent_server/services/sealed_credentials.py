"""`SealedCredentials`: the secrets a client sent, sealed in its conversation's folder.

What is sealed: every value an agent spec hides from its JSON dumps, found by comparing its
dump with and without `expose_secrets` (the agent LLM's `api_key`, any other LLM's key in
the spec, MCP servers' `env` and `headers` values), and the judge LLM of the conversation's
current goal (its whole spec, key included). Nothing the server filled in itself (its
LLM_API_KEY) is sealed. Everything goes into `secrets.sealed` in the conversation's folder,
so it is deleted, backed up and moved with the conversation; each part is sealed by
`SecretBox` (sealing.py) with the server's first key.

Reopening puts the values back into the agent read from disk before anything starts (MCP
servers included). A part no current key opens (a lost or changed key) leaves the
conversation readable: runs and goals are refused with a `SealedKeysError` saying how to get
the keys back, unless the server's LLM_API_KEY stands in for the agent's key. A part sealed
with an older key (a rotation) is sealed again with the first key when the conversation is
reopened, and by `reseal_all` when the server starts.
"""

from __future__ import annotations

import itertools
import logging
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal

from openhands.agent_server.config import ServerConfig
from openhands.agent_server.goals.judges import requested_judge
from openhands.agent_server.services.credentials import (
    JudgeChoice,
    LLMDefaults,
    SealedKeysError,
)
from openhands.agent_server.services.sealing import SecretBox, UnsealError
from openhands.sdk.agent import AgentBase
from openhands.sdk.conversation import list_conversation_ids
from openhands.sdk.errors import storage_error
from openhands.sdk.io import write_atomic
from openhands.sdk.llm import LLM
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    SerializationInfo,
    ValidationError,
    field_serializer,
)

logger = logging.getLogger(__name__)

SEALED_FILE = "secrets.sealed"
"""The file in a conversation's folder that holds its sealed secrets (JSON of sealed parts)."""

EXPOSE = {"expose_secrets": True}
"""The dump context that includes secrets (only ever dumped to be sealed)."""

JsonPath = list[str | int]


class SealedFile(BaseModel):
    """`secrets.sealed`: each part sealed on its own, so one unreadable part spares the other."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    agent: str | None = Field(default=None, description="The agent's `AgentSecrets`, sealed.")
    judge: str | None = Field(
        default=None, description="The current goal's judge LLM (JSON, key included), sealed."
    )


class SealedValue(BaseModel):
    """One secret of an agent spec: where it sits in the spec's JSON, and its value."""

    path: JsonPath = Field(min_length=1, description="Keys and indexes from the spec's root.")
    value: SecretStr

    @field_serializer("value", when_used="json")
    def _value(self, value: SecretStr, info: SerializationInfo) -> str | None:
        context = info.context
        return (
            value.get_secret_value()
            if isinstance(context, dict) and context.get("expose_secrets")
            else None
        )


class AgentSecrets(BaseModel):
    """What is sealed of an agent spec: every value its JSON dump hides."""

    values: list[SealedValue] = Field(default_factory=list)


def model_secrets(model: BaseModel, *, exclude_unset: bool = False) -> AgentSecrets:
    """The secrets in `model`: the values its JSON dump shows only with `expose_secrets`."""
    exposed = model.model_dump(mode="json", context=EXPOSE, exclude_unset=exclude_unset)
    plain = model.model_dump(mode="json", exclude_unset=exclude_unset)
    return AgentSecrets(
        values=[
            SealedValue(path=list(path), value=SecretStr(value))
            for path, value in _hidden(exposed, plain, ())
        ]
    )


def agent_secrets(agent: AgentBase) -> AgentSecrets:
    """The secrets in `agent`: the values its dump shows only with `expose_secrets`."""
    return model_secrets(agent)


def put_secrets(data: Any, secrets: AgentSecrets) -> None:
    """Write `secrets` back into `data` (a model's JSON dump) where they were found."""
    for item in secrets.values:
        _put(data, item.path, item.value.get_secret_value())


def with_secrets(agent: AgentBase, secrets: AgentSecrets) -> AgentBase:
    """`agent` (as read from disk) rebuilt with `secrets` put back where they were.

    Raises `ValidationError` if the values no longer fit the spec.
    """
    data = agent.model_dump(mode="json")
    put_secrets(data, secrets)
    return type(agent).model_validate(data)


def _hidden(exposed: Any, plain: Any, path: tuple[str | int, ...]) -> Iterator[tuple[Any, str]]:
    if isinstance(exposed, dict):
        others = plain if isinstance(plain, dict) else {}
        for key, value in exposed.items():
            yield from _hidden(value, others.get(key), (*path, key))
    elif isinstance(exposed, list):
        others = plain if isinstance(plain, list) else []
        for index, value in enumerate(exposed):
            yield from _hidden(
                value, others[index] if index < len(others) else None, (*path, index)
            )
    elif isinstance(exposed, str) and exposed != plain:
        yield path, exposed


def _put(data: Any, path: JsonPath, value: str) -> None:
    node = data
    for key, following in itertools.pairwise(path):
        if isinstance(node, dict) and isinstance(key, str):
            child = node.get(key)
            if not isinstance(child, dict | list):
                child = node[key] = {} if isinstance(following, str) else []
            node = child
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return  # the spec's shape changed: that secret has no place any more
    leaf = path[-1]
    # Two branches (not one `or`): pyright narrows the key type in each.
    if isinstance(node, dict) and isinstance(leaf, str):  # noqa: SIM114
        node[leaf] = value
    elif isinstance(node, list) and isinstance(leaf, int) and leaf < len(node):
        node[leaf] = value


@dataclass
class _Kept:
    """What is held for one open conversation (the sealed parts as on disk)."""

    agent: str | None = None
    judge: str | None = None
    judge_llm: LLM | None = None  # the judge, opened or as sent
    judge_ticket: object | None = None  # who set the judge (a refused start puts it back)
    problem: str | None = None  # why the agent cannot run: its keys cannot be opened


class SealedCredentials:
    """Credentials that survive a restart: what clients sent, sealed in each folder."""

    def __init__(
        self, config: ServerConfig, box: SecretBox, *, defaults: LLMDefaults | None = None
    ) -> None:
        """`defaults` fills LLMs that come without a key (default: the server's LLM_API_KEY)."""
        self._config = config
        self._defaults: LLMDefaults = defaults or config
        self._box = box
        self._path = config.conversations_path
        self._lock = threading.Lock()  # guards the dicts below
        self._kept: dict[uuid.UUID, _Kept] = {}
        self._pending: dict[uuid.UUID, str | None] = {}
        self._file_locks: dict[uuid.UUID, threading.Lock] = {}

    @classmethod
    def from_config(cls, config: ServerConfig) -> SealedCredentials:
        """Sealing with `OH_SECRET_KEY`, or the key file (generated on first use).

        Raises `ServerConfigError` when the key is unusable.
        """
        return cls(config, SecretBox.from_config(config))

    @property
    def box(self) -> SecretBox:
        """The keys this store seals with."""
        return self._box

    # -- the Credentials protocol ---------------------------------------------------------

    def new_conversation(self, conversation_id: uuid.UUID, agent: AgentBase) -> None:
        """Seal the secrets `agent` came with (in memory), then fill in the server's defaults."""
        secrets = agent_secrets(agent)
        token = self._seal(secrets.model_dump_json(context=EXPOSE)) if secrets.values else None
        with self._lock:
            self._pending[conversation_id] = token
        self._defaults.fill_llm(agent.llm)

    def created(self, conversation_id: uuid.UUID) -> None:
        """Write the sealed secrets into the new conversation's folder (if it has any)."""
        with self._lock:
            token = self._pending.pop(conversation_id, None)
            kept = self._kept[conversation_id] = _Kept(agent=token)
        if token is not None:
            with self._file_lock(conversation_id):
                self._write(conversation_id, kept)

    def reopened(self, conversation_id: uuid.UUID, agent: AgentBase) -> AgentBase:
        """Put the sealed secrets back into `agent`; note (never raise) what cannot be opened."""
        kept = _Kept()
        unreadable: str | None = None
        with self._file_lock(conversation_id):
            stored = self._read(conversation_id)
            if isinstance(stored, str):
                unreadable = stored
            elif stored is not None:
                kept.agent, kept.judge = stored.agent, stored.judge
                if stored.agent is not None:
                    try:
                        secrets = AgentSecrets.model_validate_json(self._box.open(stored.agent))
                        agent = with_secrets(agent, secrets)
                    except UnsealError as exc:
                        unreadable = str(exc)
                    except ValidationError as exc:
                        logger.warning(
                            "conversation %s: its sealed secrets no longer fit its agent (%d "
                            "errors); it runs without them",
                            conversation_id,
                            exc.error_count(),
                        )
                self._reseal_stale(conversation_id, kept)
        self._defaults.fill_llm(agent.llm)
        if unreadable is not None:
            if agent.llm.api_key is None:
                kept.problem = self._agent_problem(conversation_id, unreadable)
                logger.warning("%s", kept.problem)
            else:
                logger.warning(
                    "conversation %s: its sealed keys cannot be opened (%s); its agent uses "
                    "the server's LLM_API_KEY",
                    conversation_id,
                    unreadable,
                )
        with self._lock:
            self._kept[conversation_id] = kept
        return agent

    def check(self, conversation_id: uuid.UUID) -> None:
        """Raise `SealedKeysError` if the agent's sealed keys could not be opened."""
        kept = self._kept.get(conversation_id)
        if kept is not None and kept.problem is not None:
            raise SealedKeysError(kept.problem)

    def agent_changed(self, conversation_id: uuid.UUID, agent: AgentBase) -> Callable[[], None]:
        """Seal the new agent's secrets (on disk) in place of the old one's, then fill in the
        server's defaults; the returned function puts the old ones back."""
        secrets = agent_secrets(agent)
        token = self._seal(secrets.model_dump_json(context=EXPOSE)) if secrets.values else None
        with self._lock:
            kept = self._kept.setdefault(conversation_id, _Kept())
        with self._file_lock(conversation_id):
            previous = (kept.agent, kept.problem)
            kept.agent, kept.problem = token, None
            try:
                self._write(conversation_id, kept)
            except BaseException:
                kept.agent, kept.problem = previous
                raise
        self._defaults.fill_llm(agent.llm)

        def put_back() -> None:
            with self._file_lock(conversation_id):
                kept.agent, kept.problem = previous
                self._write(conversation_id, kept)

        return put_back

    def judge(
        self, conversation_id: uuid.UUID, requested: LLM | None, *, resume: bool = False
    ) -> JudgeChoice:
        """The goal's judge: a requested one sealed (before the goal starts), or the kept one."""
        self.check(conversation_id)
        with self._lock:
            kept = self._kept.setdefault(conversation_id, _Kept())
        with self._file_lock(conversation_id):
            if requested is None and resume:
                return JudgeChoice(self._kept_judge(conversation_id, kept))
            if requested is None and kept.judge is None and kept.judge_llm is None:
                return JudgeChoice(None)  # the default judge, as before: nothing changes
            previous = (kept.judge, kept.judge_llm, kept.judge_ticket)
            judge = requested_judge(requested) if requested is not None else None
            ticket = object()
            kept.judge = (
                None if judge is None else self._seal(judge.model_dump_json(context=EXPOSE))
            )
            kept.judge_llm, kept.judge_ticket = judge, ticket
            try:
                self._write(conversation_id, kept)
            except BaseException:
                kept.judge, kept.judge_llm, kept.judge_ticket = previous
                raise
        if judge is not None:
            self._defaults.fill_llm(judge)
        return JudgeChoice(
            judge, restore=partial(self._put_back, conversation_id, ticket, previous)
        )

    def forget(self, conversation_id: uuid.UUID) -> None:
        """Drop what is held for a deleted conversation (its file went with its folder)."""
        with self._lock:
            self._kept.pop(conversation_id, None)
            self._pending.pop(conversation_id, None)
            self._file_locks.pop(conversation_id, None)

    # -- rotation ---------------------------------------------------------------------------

    def reseal_all(self) -> tuple[int, int]:
        """Seal again with the first key every part an older key sealed (blocking).

        Returns (re-sealed, unreadable) conversation counts; run at start-up when several
        keys are configured, so the older ones can be dropped afterwards.
        """
        resealed = unreadable = 0
        for conversation_id in list_conversation_ids(self._path):
            try:
                changed, failed = self._reseal_one(conversation_id)
            except Exception as exc:  # a refusing disk: that one is done on its next open
                logger.warning("re-sealing conversation %s failed: %s", conversation_id, exc)
                continue
            resealed += changed
            unreadable += failed
        return resealed, unreadable

    def _reseal_one(self, conversation_id: uuid.UUID) -> tuple[bool, bool]:
        with self._file_lock(conversation_id):
            with self._lock:
                kept = self._kept.get(conversation_id)
            if kept is None:
                stored = self._read(conversation_id)
                if stored is None:
                    return False, False
                if isinstance(stored, str):
                    return False, True
                kept = _Kept(agent=stored.agent, judge=stored.judge)
            return self._reseal_stale(conversation_id, kept)

    def _reseal_stale(self, conversation_id: uuid.UUID, kept: _Kept) -> tuple[bool, bool]:
        """Re-seal `kept`'s parts that an older key sealed, and write them (best effort)."""
        changed = failed = False
        for part in ("agent", "judge"):
            token = getattr(kept, part)
            if token is None or self._box.is_current(token):
                continue
            try:
                setattr(kept, part, self._box.reseal(token))
                changed = True
            except UnsealError:
                failed = True  # left as it is: restoring the old key still opens it
        if changed:
            try:
                self._write(conversation_id, kept)
            except Exception as exc:
                logger.warning("conversation %s: re-sealing failed: %s", conversation_id, exc)
                return False, failed
        return changed, failed

    # -- files ----------------------------------------------------------------------------

    def _file_lock(self, conversation_id: uuid.UUID) -> threading.Lock:
        with self._lock:
            return self._file_locks.setdefault(conversation_id, threading.Lock())

    def _file(self, conversation_id: uuid.UUID) -> Path:
        return self._path / conversation_id.hex / SEALED_FILE

    def _read(self, conversation_id: uuid.UUID) -> SealedFile | str | None:
        """The conversation's sealed file; None if it has none; a reason if it is damaged."""
        path = self._file(conversation_id)
        try:
            text = path.read_text()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise storage_error("read", path, exc) from exc
        try:
            return SealedFile.model_validate_json(text)
        except ValidationError:
            return f"{path} is damaged"

    def _write(self, conversation_id: uuid.UUID, kept: _Kept) -> None:
        sealed = SealedFile(agent=kept.agent, judge=kept.judge)
        write_atomic(self._file(conversation_id), sealed.model_dump_json())

    def _seal(self, text: str) -> str:
        return self._box.seal(text.encode())

    # -- the judge --------------------------------------------------------------------------

    def _kept_judge(self, conversation_id: uuid.UUID, kept: _Kept) -> LLM | None:
        if kept.judge_llm is not None or kept.judge is None:
            return kept.judge_llm
        try:
            judge = LLM.model_validate_json(self._box.open(kept.judge))
        except UnsealError as exc:
            raise SealedKeysError(
                f"The judge of conversation {conversation_id}'s goal cannot be opened: {exc}. "
                "Resume with `judge_llm` (its api_key included) in the request body, or "
                f"restore the key it was sealed with ({self._help()}) and restart the server."
            ) from None
        except ValidationError as exc:
            logger.warning(
                "conversation %s: its sealed judge no longer fits an LLM (%d errors); the "
                "default judge is used",
                conversation_id,
                exc.error_count(),
            )
            return None
        self._defaults.fill_llm(judge)
        kept.judge_llm = judge
        return judge

    def _put_back(
        self,
        conversation_id: uuid.UUID,
        ticket: object,
        previous: tuple[str | None, LLM | None, object | None],
    ) -> None:
        """Undo a `judge` whose goal did not start, unless a later call replaced its judge."""
        with self._lock:
            kept = self._kept.get(conversation_id)
        if kept is None:
            return
        with self._file_lock(conversation_id):
            if kept.judge_ticket is not ticket:
                return
            kept.judge, kept.judge_llm, kept.judge_ticket = previous
            self._write(conversation_id, kept)

    # -- messages ---------------------------------------------------------------------------

    def _help(self) -> str:
        if self._box.source == "OH_SECRET_KEY":
            return "in OH_SECRET_KEY, after the current one, comma separated"
        return f"in the key file {self._box.source}, on a line below the current one"

    def _agent_problem(self, conversation_id: uuid.UUID, reason: str) -> str:
        return (
            f"The keys sealed for conversation {conversation_id} cannot be opened: {reason}. "
            "Its agent has no API key. To fix it, restore the key they were sealed with "
            f"({self._help()}) and restart the server; or set LLM_API_KEY on the server (and "
            "LLM_BASE_URL to the agent's base_url, if it has one: the key goes nowhere else), "
            "restart it and send a new message; or create a new conversation with the key."
        )
