"""`TerminalSession`: one persistent interactive bash on a pseudo-terminal.

Why a pty and not plain pipes: the terminal's line discipline turns a written Ctrl-C into
SIGINT for exactly the foreground job (bash runs with job control), and bash then abandons
the rest of the command line, as in a real terminal. Each command is written to a private
file and `source`d, so multi-line scripts, heredocs and long commands run as one unit (the
tty's canonical line limit never applies). Completion is detected through the prompt: PS1
prints a sentinel carrying a per-session nonce, the exit status (`$?`) and `$PWD`. A reader
thread drains the pty all the time, so a chatty command never blocks on a full buffer.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import tempfile
import termios
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.workspace.processes import kill_process_group, register_process_group
from openhands.sdk.workspace.sandbox import SandboxUnavailableError
from openhands.tools.terminal.launch import launch_argv, resolve_user, shell_environment

_WINDOW = 8192  # how much of the stream's tail is searched for the prompt sentinel
_POLL = 0.25  # seconds between liveness checks while waiting for output
INTERRUPT = "\x03"
"""Ctrl-C, as the terminal tool sends it for `C-c`."""
INTERRUPT_RETRY_SECONDS = 0.5
"""How long an interrupted job may run on before it gets SIGINT again."""
_TIOCGSID = getattr(termios, "TIOCGSID", 0x5429)  # Linux's value; Python does not export it


class TerminalSessionError(OpenHandsError, RuntimeError):
    """The shell could not be started or has gone away."""


class TerminalBusyError(TerminalSessionError):
    """A new command was sent while the previous one is still running."""


class NoCommandRunningError(TerminalSessionError):
    """Input or a key was sent but no command is running to receive it."""


@dataclass
class ShellOutput:
    """What one wait on the shell produced.

    `finished` is False when the wait timed out with the command still running; then
    `exit_code` is None, and `output_idle` says whether it ended early because the output had
    not changed for the wait's `no_change_timeout`. `shell_exited` is True when bash itself
    ended (e.g. `exit`).
    """

    output: str
    finished: bool
    exit_code: int | None = None
    working_dir: str | None = None
    shell_exited: bool = False
    output_idle: bool = False


class TerminalSession:
    """A bash process on a pty whose state (cwd, variables, functions) persists across commands."""

    def __init__(
        self,
        working_dir: str,
        *,
        env: Mapping[str, str] | None = None,
        username: str | None = None,
        startup_timeout: float = 15.0,
        max_buffer_chars: int = 4_000_000,
    ) -> None:
        self.working_dir = str(working_dir)
        self.username = username
        self._extra_env = dict(env or {})
        self._startup_timeout = startup_timeout
        self._max_buffer = max(max_buffer_chars, 4 * _WINDOW)
        self._nonce = uuid.uuid4().hex[:16]
        self._prompt = re.compile(
            rf"\n__OH_{self._nonce}__ (\d+) (.*?) __OH_{self._nonce}_END__\n", re.DOTALL
        )
        self._cond = threading.Condition()
        self._op_lock = threading.Lock()
        self._chunks: list[str] = []
        self._size = 0
        self._received = 0  # characters ever read, to tell whether output changed
        self._window = ""
        self._prompt_ready = False
        self._eof = False
        self._running = False
        self._command_file: Path | None = None
        self._counter = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._master: int | None = None
        self._reader: threading.Thread | None = None
        self._tmpdir: str | None = None

    # -- life cycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Spawn bash in the working directory and wait until its prompt is ready."""
        if self._proc is not None:
            raise TerminalSessionError("The session was already started.")
        if not os.path.isdir(self.working_dir):
            raise TerminalSessionError(f"Working directory {self.working_dir!r} does not exist.")
        try:
            user = resolve_user(self.username) if self.username else None
        except ValueError as exc:
            raise TerminalSessionError(f"Cannot start the shell: {exc}.") from exc
        env = shell_environment(user, self._extra_env)
        self._tmpdir = tempfile.mkdtemp(prefix="oh-terminal-")
        try:
            argv = launch_argv(user, env, working_dir=self.working_dir, command_dir=self._tmpdir)
        except (ValueError, SandboxUnavailableError) as exc:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None
            raise TerminalSessionError(f"Cannot start the shell: {exc}") from exc
        master, slave = os.openpty()
        attrs = termios.tcgetattr(slave)
        attrs[1] &= ~termios.OPOST  # no "\r\n" translation on output
        attrs[3] &= ~(termios.ECHO | termios.ECHONL)  # the command is not echoed back
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        if user is not None:
            # The shell reads its command files from here and owns its terminal.
            os.chown(self._tmpdir, user.pw_uid, user.pw_gid)
            os.fchown(slave, user.pw_uid, -1)
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=self.working_dir,
                env=env,
                start_new_session=True,  # its whole tree is one group: a kill reaches it all
            )
        except OSError as exc:
            os.close(master)
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None
            raise TerminalSessionError(f"Could not start bash: {exc}") from exc
        finally:
            os.close(slave)
        # The process started leads its session: guard it and everything below it.
        register_process_group(self._proc.pid)
        self._master = master
        self._reader = threading.Thread(target=self._read_loop, name="terminal-reader", daemon=True)
        self._reader.start()
        ps1 = rf"\n__OH_{self._nonce}__ $? $PWD __OH_{self._nonce}_END__\n"
        self._write(f"set +H; PS2=''; PS1='{ps1}'\n")
        self._running = True
        result = self._collect(self._startup_timeout)
        if not result.finished or result.shell_exited:
            output = result.output[-2000:]
            self.close()
            raise TerminalSessionError(f"bash did not become ready; its output: {output!r}")

    @property
    def is_alive(self) -> bool:
        """True while bash is running."""
        return self._proc is not None and self._proc.poll() is None and not self._eof

    def process_ids(self) -> list[int]:
        """The process this session started (bash, or the sandbox around it), if alive."""
        proc = self._proc
        return [proc.pid] if proc is not None and proc.poll() is None else []

    @property
    def is_running(self) -> bool:
        """True while a command sent to the shell has not finished."""
        return self._running

    def close(self) -> None:
        """Kill bash and everything it started, and release the pty."""
        proc, self._proc = self._proc, None
        if proc is not None:
            kill_process_group(proc.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        master, self._master = self._master, None
        if master is not None:
            with contextlib.suppress(OSError):
                os.close(master)
        if self._reader is not None:
            self._reader.join(timeout=5)
            self._reader = None
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None
        self._running = False

    # -- commands -----------------------------------------------------------------------------

    def run(
        self, command: str, timeout: float, *, no_change_timeout: float | None = None
    ) -> ShellOutput:
        """Run `command` (any bash, several lines allowed); wait up to `timeout` seconds.

        With `no_change_timeout`, return early once the output has not changed for that many
        seconds (the command keeps running, as after a timeout).
        """
        with self._op_lock:
            self._require_alive()
            if self._running:
                raise TerminalBusyError("The previous command is still running.")
            assert self._tmpdir is not None
            self._counter += 1
            path = Path(self._tmpdir) / f"command-{self._counter}.sh"
            path.write_text(command if command.endswith("\n") else command + "\n")
            with self._cond:
                self._reset_buffer("")
            self._command_file = path
            self._running = True
            self._write(f"source {shlex.quote(str(path))}\n")
            return self._collect(timeout, no_change_timeout)

    def send_input(
        self, text: str, timeout: float, *, no_change_timeout: float | None = None
    ) -> ShellOutput:
        """Write `text` (keys or a line) to the running command, then wait as `run` does."""
        with self._op_lock:
            self._require_alive()
            if not self._running:
                raise NoCommandRunningError("No command is running to receive input.")
            self._write(text)
            if text == INTERRUPT:
                return self._collect_interrupted(timeout)
            return self._collect(timeout, no_change_timeout)

    def wait(self, timeout: float, *, no_change_timeout: float | None = None) -> ShellOutput:
        """Collect more output of the running command, waiting as `run` does for it to end."""
        with self._op_lock:
            self._require_alive()
            if not self._running:
                raise NoCommandRunningError("No command is running.")
            return self._collect(timeout, no_change_timeout)

    # -- internals ----------------------------------------------------------------------------

    def _require_alive(self) -> None:
        if not self.is_alive:
            raise TerminalSessionError("The shell is not running.")

    def _write(self, text: str) -> None:
        assert self._master is not None
        data = text.encode()
        while data:
            written = os.write(self._master, data)
            data = data[written:]

    def _read_loop(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        master = self._master
        while master is not None:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO once bash and every child closed the pty
                data = b""
            text = decoder.decode(data, final=not data)
            with self._cond:
                if text:
                    self._append(text)
                if not data:
                    self._eof = True
                self._cond.notify_all()
            if not data:
                return

    def _append(self, text: str) -> None:
        self._chunks.append(text)
        self._size += len(text)
        self._received += len(text)
        self._window = (self._window + text)[-_WINDOW:]
        if not self._prompt_ready and self._prompt.search(self._window):
            self._prompt_ready = True
        if self._size > self._max_buffer:
            full = "".join(self._chunks)
            head, tail = full[: self._max_buffer // 4], full[-self._max_buffer // 2 :]
            dropped = len(full) - len(head) - len(tail)
            self._chunks = [head, f"\n[... {dropped} characters dropped while waiting ...]\n", tail]
            self._size = sum(len(chunk) for chunk in self._chunks)

    def _reset_buffer(self, keep: str) -> None:
        self._chunks = [keep] if keep else []
        self._size = len(keep)
        self._window = keep[-_WINDOW:]
        self._prompt_ready = bool(self._prompt.search(self._window))

    def _collect(self, timeout: float, no_change_timeout: float | None = None) -> ShellOutput:
        deadline = time.monotonic() + max(timeout, 0.0)
        idle = False
        with self._cond:
            changed_at, seen = time.monotonic(), self._received
            while not self._prompt_ready and not self._eof:
                now = time.monotonic()
                if self._received != seen:
                    changed_at, seen = now, self._received
                remaining = deadline - now
                if no_change_timeout is not None:
                    quiet_left = changed_at + no_change_timeout - now
                    if quiet_left <= 0 and remaining > 0:
                        idle = True
                        break
                    remaining = min(remaining, quiet_left)
                if remaining <= 0:
                    break
                if self._proc is None or self._proc.poll() is not None:
                    # bash is gone; give the reader a moment to drain what it printed last
                    self._cond.wait(min(remaining, _POLL))
                    self._eof = True
                    break
                self._cond.wait(min(remaining, _POLL))
            full = "".join(self._chunks)
            match = self._prompt.search(full) if self._prompt_ready else None
            if match is not None:
                self._reset_buffer(full[match.end() :])
                self._finish_command()
                return ShellOutput(
                    output=full[: match.start()],
                    finished=True,
                    exit_code=int(match.group(1)),
                    working_dir=match.group(2),
                )
            if self._eof:
                self._reset_buffer("")
                self._finish_command()
                code = self._proc.wait(timeout=5) if self._proc is not None else None
                return ShellOutput(output=full, finished=True, exit_code=code, shell_exited=True)
            emit, keep = self._split_partial(full)
            self._reset_buffer(keep)
            return ShellOutput(output=emit, finished=False, output_idle=idle)

    def _collect_interrupted(self, timeout: float) -> ShellOutput:
        """`_collect` after a Ctrl-C, sending SIGINT again to a foreground job that survives it.

        A Ctrl-C that reaches bash while it is still starting the command (after reading it,
        before its job owns the terminal) is lost, and the job then runs on; a person would
        press Ctrl-C again. Only a child job in the foreground is signalled, never bash itself.
        """
        deadline = time.monotonic() + max(timeout, 0.0)
        earlier: list[str] = []
        while True:
            left = deadline - time.monotonic()
            result = self._collect(min(left, INTERRUPT_RETRY_SECONDS))
            if result.finished or left <= INTERRUPT_RETRY_SECONDS:
                return replace(result, output="".join([*earlier, result.output]))
            earlier.append(result.output)
            self._interrupt_foreground_job()

    def _interrupt_foreground_job(self) -> None:
        if self._master is None or self._proc is None:
            return
        with contextlib.suppress(OSError):
            job = os.tcgetpgrp(self._master)
            if job != self._shell_pid():  # bash's group is the foreground only at its prompt
                os.killpg(job, signal.SIGINT)

    def _shell_pid(self) -> int:
        """bash's pid: the session the pty belongs to (in a sandbox, not the process we
        started, which is bubblewrap or its network starter)."""
        assert self._master is not None and self._proc is not None
        try:
            packed = fcntl.ioctl(self._master, _TIOCGSID, struct.pack("i", 0))
        except OSError:
            return self._proc.pid
        return struct.unpack("i", packed)[0]

    def _finish_command(self) -> None:
        self._running = False
        if self._command_file is not None:
            self._command_file.unlink(missing_ok=True)
            self._command_file = None

    def _split_partial(self, text: str) -> tuple[str, str]:
        """Split output at a safe point: a half-printed prompt sentinel stays in the buffer."""
        start = f"__OH_{self._nonce}__"
        cut = text.rfind("\n")
        if cut < 0:
            return text, ""
        last_line = text[cut + 1 :]
        if start.startswith(last_line) or last_line.startswith(start):
            return text[:cut], text[cut:]
        return text, ""
