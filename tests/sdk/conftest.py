"""Fixtures for SDK core tests: scripted replies, scripted conversations and test tools."""

from __future__ import annotations

import contextlib
import json
import resource
import shutil
import signal
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from extension_helpers import GitRepo
from openhands.sdk import (
    Action,
    Agent,
    LocalConversation,
    Message,
    MessageToolCall,
    Observation,
    TextContent,
    Tool,
    ToolDefinition,
    register_tool,
)
from openhands.sdk.testing import TestLLM
from pydantic import Field

# -- scripted replies ------------------------------------------------------------------------


class Replies:
    """Builders for the assistant messages a TestLLM replays."""

    @staticmethod
    def text(text: str) -> Message:
        """A content-only reply (it ends the run)."""
        return Message(role="assistant", content=[TextContent(text=text)])

    @staticmethod
    def call(
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        call_id: str | None = None,
        raw_arguments: str | None = None,
        thought: str = "",
    ) -> Message:
        """A reply with one tool call; `raw_arguments` sends arguments verbatim (bad JSON)."""
        args = raw_arguments if raw_arguments is not None else json.dumps(arguments or {})
        return Message(
            role="assistant",
            content=[TextContent(text=thought)] if thought else [],
            tool_calls=[
                MessageToolCall(
                    id=call_id or f"call_{uuid.uuid4().hex[:8]}", name=name, arguments=args
                )
            ],
        )

    @staticmethod
    def calls(*calls: tuple[str, dict[str, Any]]) -> Message:
        """A reply with several parallel tool calls."""
        return Message(
            role="assistant",
            tool_calls=[
                MessageToolCall(id=f"call_{index}_{name}", name=name, arguments=json.dumps(args))
                for index, (name, args) in enumerate(calls)
            ],
        )

    @classmethod
    def finish(cls, message: str = "done") -> Message:
        """A `finish` call."""
        return cls.call("finish", {"message": message})

    @classmethod
    def think(cls, thought: str) -> Message:
        """A `think` call."""
        return cls.call("think", {"thought": thought})


@pytest.fixture
def reply() -> type[Replies]:
    """Builders for scripted assistant replies."""
    return Replies


# -- test tools --------------------------------------------------------------------------------


class EchoAction(Action):
    """Arguments of `echo`."""

    text: str = Field(description="What to echo.")
    times: int = Field(default=1, ge=1, le=5, description="How many times.")


class EchoTool(ToolDefinition):
    """Echoes its text back, `times` times; records every validated action it ran."""

    description = "Echo text back."
    action_type = EchoAction
    received: ClassVar[list[EchoAction]] = []

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        assert isinstance(action, EchoAction)
        EchoTool.received.append(action)
        return Observation.from_text(" ".join([action.text] * action.times))


register_tool(EchoTool.name, EchoTool)


class Gate:
    """Lets a test hold a tool call open: the tool sets `started`, then waits for `release`."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()


class GatedAction(Action):
    """Arguments of `gated`."""

    label: str = ""


class GatedTool(ToolDefinition):
    """Blocks until the test opens its gate (at most 10 s), then answers."""

    description = "Wait for the gate."
    action_type = GatedAction

    gate: Gate

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        self.gate.started.set()
        if not self.gate.release.wait(timeout=10):
            return Observation.from_text("the gate never opened", is_error=True)
        return Observation.from_text(f"passed {action.label}")


@pytest.fixture
def echo_received() -> Iterator[list[EchoAction]]:
    """The actions the `echo` tool ran during this test."""
    EchoTool.received.clear()
    yield EchoTool.received
    EchoTool.received.clear()


@pytest.fixture
def gate() -> Iterator[Gate]:
    """A fresh gate behind the `gated` tool (opened at teardown so nothing hangs)."""
    fresh = Gate()
    register_tool("gated", lambda context, **params: [GatedTool(gate=fresh)])
    yield fresh
    fresh.release.set()


# -- scripted conversations --------------------------------------------------------------------

MakeConversation = Callable[..., tuple[LocalConversation, TestLLM]]


@pytest.fixture
def make_conversation(workspace_dir: Path, persistence_dir: Path) -> Iterator[MakeConversation]:
    """Build a LocalConversation whose agent replays `replies`; returns it and its TestLLM.

    Persisted under `persistence_dir` unless `persist=False`; `tools` are tool names; other
    keyword arguments go to LocalConversation. Every conversation is closed at teardown.
    """
    opened: list[LocalConversation] = []

    def build(
        replies: Sequence[Message | Exception] = (),
        *,
        tools: Sequence[str] = (),
        persist: bool = True,
        **kwargs: Any,
    ) -> tuple[LocalConversation, TestLLM]:
        llm = TestLLM.from_messages(replies)
        agent = Agent(llm=llm, tools=[Tool(name=name) for name in tools])
        if persist:
            kwargs.setdefault("persistence_dir", persistence_dir)
        conversation = LocalConversation(agent, workspace_dir, **kwargs)
        opened.append(conversation)
        return conversation, llm

    yield build
    for conversation in opened:
        conversation.close()


def event_kinds(conversation: LocalConversation) -> list[str]:
    """The kinds of a conversation's events, in order (a helper for readable asserts)."""
    return [event.kind for event in conversation.state.events]


@pytest.fixture
def kinds() -> Callable[[LocalConversation], list[str]]:
    """`kinds(conversation)`: its event kinds in order."""
    return event_kinds


# -- a disk that refuses -----------------------------------------------------------------------

FileSizeLimit = Callable[[int], contextlib.AbstractContextManager[None]]


@pytest.fixture
def file_size_limit() -> FileSizeLimit:
    """`with file_size_limit(n):` no file of this process may grow past n bytes (EFBIG).

    A real refusal by the kernel (RLIMIT_FSIZE), including a partial write that stops at the
    limit; SIGXFSZ is ignored meanwhile so the write fails instead of killing the process.
    """

    @contextlib.contextmanager
    def limit(size: int) -> Iterator[None]:
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
        try:
            yield
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            signal.signal(signal.SIGXFSZ, previous)

    return limit


# -- what a crash leaves -------------------------------------------------------------------------

CrashCopy = Callable[[LocalConversation], Path]


@pytest.fixture
def crash_copy(tmp_path: Path) -> CrashCopy:
    """`crash_copy(conversation)`: a persistence dir holding its files as they are right now.

    That is what a `kill -9` of its process would leave on disk (every event is fsynced when
    appended; nothing runs at close). Reopen the copy with the same conversation id.
    """
    copies = iter(range(1_000_000))

    def copy(conversation: LocalConversation) -> Path:
        folder = conversation.state.folder
        assert folder is not None, "only a persisted conversation leaves files"
        target = tmp_path / f"crashed-{next(copies)}"
        shutil.copytree(folder, target / folder.name)
        return target

    return copy


@pytest.fixture
def crash_mid_run(crash_copy: CrashCopy, gate: Gate) -> CrashCopy:
    """`crash_mid_run(conversation)`: its files as a kill -9 during a tool call leaves them.

    Runs the conversation (whose next reply calls the `gated` tool) in a thread, copies its
    files while the tool runs (the log says `running`), then lets the run end. Returns the
    copy's persistence dir.
    """

    def crash(conversation: LocalConversation) -> Path:
        runner = threading.Thread(target=conversation.run)
        runner.start()
        assert gate.started.wait(5), "the run never reached its `gated` tool call"
        crashed = crash_copy(conversation)
        gate.release.set()
        runner.join(5)
        return crashed

    return crash


# -- extensions: local git repositories and a fresh HOME -----------------------------------------


@pytest.fixture
def git_repo(tmp_path: Path) -> Callable[[str], GitRepo]:
    """`git_repo("name")`: a new local git repository under tmp_path."""
    return lambda name: GitRepo(tmp_path / "repos" / name)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME (user skills, installs and caches go there)."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder
