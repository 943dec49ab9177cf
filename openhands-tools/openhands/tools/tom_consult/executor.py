"""`TomConsultExecutor`: runs both Tom tools on the `tom-swe` package's Tom agent.

Tom is loaded on first use (`tom_swe.tom_agent.create_tom_agent`); without the package, or
without a model for it, each call answers with an error observation naming what to install
or set. Tom keeps its user model in `data_dir` through `TomFileStore`; `sleeptime_compute`
hands it the messages of the conversations stored under `data_dir/conversations` that grew
since they were last indexed (counted in `tom/processed_sessions.json`).
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from openhands.sdk.errors import InvalidArgumentError, OpenHandsError
from openhands.sdk.io import write_atomic
from openhands.sdk.tool import Observation, ToolExecutor
from openhands.tools.tom_consult.schema import (
    ConsultTomAction,
    ConsultTomObservation,
    SleeptimeComputeAction,
    SleeptimeComputeObservation,
)

__all__ = ["TOM_PACKAGE", "TomConsultExecutor", "TomFileStore", "TomUnavailable"]

logger = logging.getLogger(__name__)

TOM_PACKAGE = "tom-swe"
"""The PyPI package that provides Tom (imported as `tom_swe`)."""
HISTORY_FILE = "tom/processed_sessions.json"


class TomUnavailable(OpenHandsError, RuntimeError):
    """Tom cannot be used here; the message says what to install or set."""


class TomFileStore:
    """The file store Tom's agent keeps its user model in: paths relative to one folder,
    none outside it."""

    def __init__(self, root: str) -> None:
        self.root = Path(os.path.expanduser(root)).resolve()

    def _path(self, path: str) -> Path:
        full = (self.root / path.lstrip("/")).resolve()
        if full != self.root and self.root not in full.parents:
            raise InvalidArgumentError(f"{path!r} is outside Tom's folder {self.root}")
        return full

    def write(self, path: str, contents: str | bytes) -> None:
        """Replace the file at `path` with `contents`."""
        target = self._path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, contents)

    def read(self, path: str) -> str:
        """The text of the file at `path` (FileNotFoundError if none)."""
        return self._path(path).read_text(encoding="utf-8")

    def list(self, path: str) -> list[str]:
        """The entries of the folder `path`, relative to the root (folders end with /)."""
        folder = self._path(path)
        if not folder.is_dir():
            return []
        return sorted(
            str(entry.relative_to(self.root)) + ("/" if entry.is_dir() else "")
            for entry in folder.iterdir()
        )

    def delete(self, path: str) -> None:
        """Remove the file at `path`, if there is one."""
        self._path(path).unlink(missing_ok=True)


class TomConsultExecutor(ToolExecutor[ConsultTomAction | SleeptimeComputeAction, Observation]):
    """Consults Tom, or indexes conversations for it."""

    def __init__(
        self,
        enable_rag: bool = True,
        llm_model: str | None = None,
        api_key: str | None = None,
        api_base: str | None = None,
        data_dir: str = "~/.openhands",
    ) -> None:
        self.enable_rag = enable_rag
        self.llm_model = llm_model
        self._api_key = api_key
        self.api_base = api_base
        self.file_store = TomFileStore(data_dir)
        self.user_id = ""
        self._lock = threading.Lock()
        self._agent: Any = None

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        """Run one Tom action; an error observation when Tom is not available."""
        try:
            agent = self._tom()
        except TomUnavailable as exc:
            if isinstance(action, SleeptimeComputeAction):
                return SleeptimeComputeObservation.from_text(
                    str(exc), is_error=True, message=str(exc)
                )
            return ConsultTomObservation.from_text(str(exc), is_error=True, suggestions=str(exc))
        if isinstance(action, SleeptimeComputeAction):
            return self._sleeptime(agent)
        return self._consult(agent, action, conversation)

    # -- Tom -----------------------------------------------------------------------------

    def _tom(self) -> Any:
        with self._lock:
            if self._agent is not None:
                return self._agent
            try:
                # By name: an optional extra (`openhands-tools[tom]`), absent from the
                # default install, so no static import that every checker would resolve.
                create_tom_agent = importlib.import_module("tom_swe.tom_agent").create_tom_agent
            except ImportError as exc:
                raise TomUnavailable(
                    f"Tom is not available: the {TOM_PACKAGE} package is not installed "
                    f"(pip install {TOM_PACKAGE}, or the openhands-tools[tom] extra; {exc}). "
                    "Do not consult Tom again in this conversation."
                ) from None
            if not self.llm_model:
                raise TomUnavailable(
                    "Tom is not available: it has no model. Give the tool the params "
                    "llm_model (and api_key, api_base as the model needs)."
                )
            self._agent = create_tom_agent(
                file_store=self.file_store,
                enable_rag=self.enable_rag,
                llm_model=self.llm_model,
                api_key=self._api_key,
                api_base=self.api_base,
            )
            return self._agent

    def _consult(self, agent: Any, action: ConsultTomAction, conversation: Any) -> Observation:
        messages = _messages(getattr(getattr(conversation, "state", None), "events", []))
        if action.use_user_message:
            users = [m["content"][0]["text"] for m in messages if m["role"] == "user"]
            if not users:
                return ConsultTomObservation.from_text(
                    "There is no user message to ask Tom about.", is_error=True
                )
            query = f"I am SWE agent. {action.reason} I need to consult ToM agent about the user's message: {users[-1]}"
        elif action.custom_query:
            query = f"I am SWE agent. {action.reason} I need to consult ToM agent: {action.custom_query}"
        else:
            return ConsultTomObservation.from_text(
                "Give custom_query, or set use_user_message=true.", is_error=True
            )
        try:
            result = agent.give_suggestions(
                user_id=self.user_id, query=query, formatted_messages=messages
            )
        except Exception as exc:  # Tom is outside code: any failure is its answer
            logger.warning("tom_consult failed", exc_info=True)
            text = f"Tom could not answer ({type(exc).__name__}: {exc}); continue without it."
            return ConsultTomObservation.from_text(text, is_error=True, suggestions=text)
        suggestions = str(getattr(result, "suggestions", "") or "")
        if not suggestions:
            return ConsultTomObservation.from_text("Tom gave no suggestions.", is_error=True)
        return ConsultTomObservation.from_text(
            suggestions,
            suggestions=suggestions,
            confidence=getattr(result, "confidence", None),
            reasoning=getattr(result, "reasoning", None),
        )

    def _sleeptime(self, agent: Any) -> Observation:
        history = self._history()
        folder = self.file_store.root / "conversations"
        sessions, counts = [], {}
        for log in sorted(folder.glob("*/events.jsonl")) if folder.is_dir() else []:
            session = log.parent.name
            events = _read_events(log)
            if len(events) <= history.get(session, {}).get("last_event_count", 0):
                continue
            messages = [
                {"role": m["role"], "content": m["content"][0]["text"]} for m in _messages(events)
            ]
            counts[session] = len(events)
            if messages:
                sessions.append(
                    {
                        "session_id": session,
                        "start_time": events[0].get("timestamp", ""),
                        "end_time": events[-1].get("timestamp", ""),
                        "event_count": len(events),
                        "message_count": len(messages),
                        "conversation_messages": messages,
                    }
                )
        if not sessions:
            return SleeptimeComputeObservation.from_text(
                "No new conversations to index.", message="No new conversations to index."
            )
        try:
            agent.sleeptime_compute(sessions_data=sessions, user_id=self.user_id)
        except Exception as exc:  # Tom is outside code
            logger.warning("sleeptime_compute failed", exc_info=True)
            text = f"Tom could not index the conversations ({type(exc).__name__}: {exc})."
            return SleeptimeComputeObservation.from_text(text, is_error=True, message=text)
        now = datetime.now(UTC).isoformat()
        history.update(
            {name: {"processed_at": now, "last_event_count": n} for name, n in counts.items()}
        )
        self.file_store.write(HISTORY_FILE, json.dumps(history, indent=2))
        text = f"Indexed {len(sessions)} conversation(s) for user modeling."
        return SleeptimeComputeObservation.from_text(
            text, message=text, sessions_processed=len(sessions)
        )

    def _history(self) -> dict[str, Any]:
        try:
            data = json.loads(self.file_store.read(HISTORY_FILE))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}


def _messages(events: Any) -> list[dict[str, Any]]:
    """The user and assistant messages among `events` (objects or stored JSON), as Tom reads
    them: `{"role", "content": [{"text"}]}`."""
    found = []
    for event in events:
        data: dict[str, Any]
        if isinstance(event, dict):
            data = event
        elif type(event).__name__ == "MessageEvent":
            data = {**event.model_dump(mode="json"), "kind": "MessageEvent"}
        else:
            continue
        if data.get("kind") != "MessageEvent":
            continue
        message = data.get("llm_message") or {}
        text = "".join(
            part.get("text", "") for part in message.get("content") or [] if isinstance(part, dict)
        ).strip()
        if message.get("role") in ("user", "assistant") and text:
            found.append({"role": message["role"], "content": [{"text": text}]})
    return found


def _read_events(log: Path) -> list[dict[str, Any]]:
    events = []
    with log.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                events.append(json.loads(line))
            except ValueError:
                continue  # a torn last line
    return events
