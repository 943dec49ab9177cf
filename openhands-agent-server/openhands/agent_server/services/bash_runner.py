"""`RunningCommand`: one `/api/bash` command, its output published while it runs, stoppable.

The command runs like the agent's terminal and `verify` (bash in the sandbox of its
workspace, the agent's environment, its own session guarded by the watchdog), but its output
is read as it comes: every `stream_seconds` what arrived is handed on as a `BashOutput` with
no exit code yet (the reference server's chunks), and the last one carries the exit code.
stderr is interleaved with stdout, as a terminal shows them. Only the thread running the
command kills its tree (at its timeout, or when `stop()` asks), so a pid is never signalled
after it was reaped.
"""

from __future__ import annotations

import codecs
import os
import selectors
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from openhands.sdk.wire import BashOutput
from openhands.sdk.workspace.agent_env import agent_environment
from openhands.sdk.workspace.agent_files import agent_files
from openhands.sdk.workspace.processes import guarded_process_group, kill_process_group
from openhands.sdk.workspace.sandbox import SandboxUnavailableError
from openhands.sdk.workspace.sandbox_popen import sandbox_popen
from openhands.sdk.workspace.shell import CANNOT_START_EXIT_CODE, TIMEOUT_EXIT_CODE

CHUNK_CHARS = 1024 * 1024
"""Most characters one output event carries (the reference's size); more is split."""
READ_BYTES = 64 * 1024
DRAIN_SECONDS = 5.0
"""After a kill, how long the rest of the output may take to arrive."""


class RunningCommand:
    """A command started by `run()` in a worker thread; `stop()` from any thread ends it."""

    def __init__(
        self,
        command_id: uuid.UUID,
        command: str,
        *,
        cwd: Path,
        workspace: Path,
        timeout: float,
        stream_seconds: float,
        publish: Callable[[BashOutput], None],
        on_end: Callable[[uuid.UUID], None] | None = None,
    ) -> None:
        """`publish` receives each output event in order (the last one has the exit code);
        `on_end` is called with the command's id once it ended, before the last event."""
        self.command_id = command_id
        self.command = command
        self.cwd = cwd
        self.workspace = workspace
        self.timeout = timeout
        self.stream_seconds = stream_seconds
        self._publish = publish
        self._on_end = on_end
        self._order = 0
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()  # stop() wakes the reader at once
        self._wake_lock = threading.Lock()
        self._wake_open = True
        self.done = threading.Event()
        """Set once the last output event is published."""

    def stop(self) -> None:
        """Ask the command to end now (its tree is killed); returns at once."""
        self._stop.set()
        with self._wake_lock:
            if self._wake_open:  # else the descriptor may already name another file
                os.write(self._wake_w, b"x")

    def run(self) -> BashOutput:
        """Run the command to its end, publishing its output; the last event (also returned)."""
        try:
            final = self._run()
        except Exception as exc:  # never lose a command: its failure is its last output
            final = self._output(-1, f"{type(exc).__name__}: {exc}", timed_out=False)
        finally:
            with self._wake_lock:
                self._wake_open = False
                os.close(self._wake_r)
                os.close(self._wake_w)
        if self._on_end is not None:
            self._on_end(self.command_id)
        self._publish(final)
        self.done.set()
        return final

    # -- internals ----------------------------------------------------------------------------

    def _run(self) -> BashOutput:
        # Made if missing, as the agent could: inside the writable folders of its sandbox.
        agent_files(self.workspace).make_dirs(self.cwd)
        env = dict(agent_environment())
        env["PYTHONUNBUFFERED"] = "1"
        try:
            started = sandbox_popen(
                ["bash", "-c", self.command],
                workspace=self.workspace,
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,  # one group for its whole tree: a kill reaches them all
            )
        except (OSError, ValueError, SandboxUnavailableError) as exc:
            return self._output(CANNOT_START_EXIT_CODE, f"cannot start: {exc}", timed_out=False)
        process = started.process
        try:
            with guarded_process_group(process.pid):
                return self._follow(process)
        finally:
            started.release()

    def _follow(self, process: subprocess.Popen[bytes]) -> BashOutput:
        assert process.stdout is not None
        deadline = time.monotonic() + self.timeout
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        since: float | None = None  # when the oldest unpublished output arrived
        killed: str | None = None  # "stop" or "timeout"
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            selector.register(self._wake_r, selectors.EVENT_READ)
            while True:
                now = time.monotonic()
                if self._stop.is_set() or now >= deadline:
                    killed = "stop" if self._stop.is_set() else "timeout"
                    break
                wait = deadline - now
                if pending and self.stream_seconds > 0 and since is not None:
                    wait = min(wait, max(0.0, since + self.stream_seconds - now))
                ready = selector.select(wait)
                if any(key.fileobj is process.stdout for key, _ in ready):
                    data = os.read(process.stdout.fileno(), READ_BYTES)
                    if not data:
                        break  # end of output: the command (and its jobs) closed it
                    pending += decoder.decode(data)
                    since = since or time.monotonic()
                while len(pending) >= CHUNK_CHARS:
                    self._chunk(pending[:CHUNK_CHARS])
                    pending = pending[CHUNK_CHARS:]
                    since = time.monotonic() if pending else None
                if self._due(pending, since):
                    self._chunk(pending)
                    pending, since = "", None
        if killed is None:
            killed = self._wait_for_exit(process, deadline)
        if killed is not None:
            kill_process_group(process.pid)
            pending += self._drain(process, decoder)
            process.wait()
        pending += decoder.decode(b"", final=True)
        while len(pending) > CHUNK_CHARS:
            self._chunk(pending[:CHUNK_CHARS])
            pending = pending[CHUNK_CHARS:]
        if killed == "timeout":
            pending += f"\n[command timed out after {self.timeout:g} s]"
            return self._output(TIMEOUT_EXIT_CODE, pending, timed_out=True)
        return self._output(process.returncode, pending, timed_out=False)

    def _due(self, pending: str, since: float | None) -> bool:
        """Whether the output gathered since `since` is to be published now."""
        if not pending or since is None or self.stream_seconds <= 0:
            return False
        return time.monotonic() - since >= self.stream_seconds

    def _wait_for_exit(self, process: subprocess.Popen[bytes], deadline: float) -> str | None:
        """After its output closed, wait for the command's exit; why it must be killed, if so."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            try:
                process.wait(timeout=min(left, 0.1))
                return None
            except subprocess.TimeoutExpired:
                if self._stop.is_set():
                    return "stop"

    def _drain(self, process: subprocess.Popen[bytes], decoder: codecs.IncrementalDecoder) -> str:
        """What a killed command printed last, without hanging on a pipe an escapee holds."""
        assert process.stdout is not None
        text = ""
        end = time.monotonic() + DRAIN_SECONDS
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while (left := end - time.monotonic()) > 0:
                if not selector.select(left):
                    break
                data = os.read(process.stdout.fileno(), READ_BYTES)
                if not data:
                    break
                text += decoder.decode(data)
        return text

    def _chunk(self, text: str) -> None:
        self._publish(BashOutput(command_id=self.command_id, order=self._order, stdout=text))
        self._order += 1

    def _output(self, exit_code: int, text: str, *, timed_out: bool) -> BashOutput:
        return BashOutput(
            command_id=self.command_id,
            order=self._order,
            exit_code=exit_code,
            stdout=text or None,
            command=self.command,
            timed_out=timed_out,
        )
