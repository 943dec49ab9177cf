"""Agent servers forked from a process that has already imported them.

The suite starts ~250 agent servers. A fresh `python -m openhands.agent_server` spends most
of its ~0.4 s of start-up CPU importing FastAPI, pydantic and our modules; a fork of an
interpreter that imported them once (as gunicorn's `--preload` does) costs ~0.1 s. Each
pytest worker that starts a server gets one such process, the *zygote*
(tests/zygote_process.py), on first use. Asked for a server, the zygote forks; the child
takes the request's folder, environment, command line and log file, then runs
`openhands.agent_server` as `python -m` would, and exits as that would (atexit handlers,
non-daemon threads, the exit code). The zygote reports each child's pid, and its exit
status once it ends. It also imports what most servers import soon after they start (the
native LLM client, the terminal) and builds the pydantic validators the server defers to their
first use, so the children share them (a small goal then costs a server ~0.10 s of CPU, not
~0.14 s).

Not forked (a fresh process, as before): another interpreter, a `preexec_fn`, or an
environment that changes how Python starts (the `OH_TEST_*` variables the probe in
tests/process_probe reads at start-up, `PYTHON*` variables other than PYTHONUNBUFFERED,
when they differ from this worker's). Tests of start-up itself (tests/import_budget.py, the
image, the wheels) start their processes themselves. `OH_TEST_NO_FORK=1` turns forking off
for a whole run.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from ports import Started

MODULE = "openhands.agent_server"
ZYGOTE = Path(__file__).with_name("zygote_process.py")
DISABLE_VARIABLE = "OH_TEST_NO_FORK"
STARTUP_VARIABLES = frozenset(
    {
        "OH_TEST_IMPORT_REPORT",
        "OH_TEST_IMPORT_PREFIX",
        "OH_TEST_LITELLM_ALLOWED",
        "OH_TEST_MODULES_DUMP",
    }
)
"""Read by tests/process_probe/sitecustomize.py when an interpreter starts: a fork inherits
what the zygote read, so a server whose values differ from this worker's starts fresh."""


class ServerChild(Started, Protocol):
    """What the harnesses use of a server's process: `subprocess.Popen` or a `ForkedChild`."""

    def send_signal(self, sig: int) -> None: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...


class ForkedChild:
    """A server forked by the zygote: the subset of `subprocess.Popen` the harnesses use."""

    def __init__(self, pid: int, args: list[str]) -> None:
        self.pid = pid
        self.args = args
        self.returncode: int | None = None
        self._ended = threading.Event()

    def _end(self, returncode: int) -> None:
        self.returncode = returncode
        self._ended.set()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            # ProcessLookupError: it ended, and the zygote's report is on its way.
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    """This worker's zygote: forks servers on request and reports how they end."""

    def __init__(self, log: Path) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with open(log, "ab") as handle:
            self._process = subprocess.Popen(
                [sys.executable, str(ZYGOTE)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=handle,
                env=env,
            )
        self._log = log
        self._lock = threading.Lock()
        self._children: dict[int, ForkedChild] = {}
        self._early_exits: dict[int, int] = {}
        """Exits reported before `fork` registered the child (it ended at once)."""
        self._pids: list[int] = []
        self._answered = threading.Condition()
        assert self._process.stdout is not None
        first = self._process.stdout.readline()
        if json.loads(first or b"{}").get("ready") is not True:
            raise RuntimeError(f"the zygote did not start:\n{log.read_text(errors='replace')}")
        threading.Thread(target=self._read, name="zygote-reports", daemon=True).start()

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            report = json.loads(line)
            with self._answered:
                if "returncode" in report:
                    child = self._children.pop(report["pid"], None)
                    if child is None:
                        self._early_exits[report["pid"]] = report["returncode"]
                    else:
                        child._end(report["returncode"])
                else:
                    self._pids.append(report["pid"])
                    self._answered.notify_all()
        with self._answered:  # the zygote is gone: nothing more will be reported
            self._pids.append(-1)
            self._answered.notify_all()

    def fork(self, args: list[str], env: Mapping[str, str], cwd: str, log: Path) -> ForkedChild:
        """A server run as `python -m openhands.agent_server *args`, its output in `log`."""
        request = {"args": args, "env": dict(env), "cwd": cwd, "log": str(log)}
        with self._lock:
            assert self._process.stdin is not None
            with self._answered:
                self._process.stdin.write(json.dumps(request).encode() + b"\n")
                self._process.stdin.flush()
                while not self._pids:
                    if not self._answered.wait(timeout=30):
                        raise RuntimeError("the zygote did not answer within 30 s")
                pid = self._pids.pop(0)
                if pid < 0:
                    raise RuntimeError(
                        f"the zygote ended:\n{self._log.read_text(errors='replace')}"
                    )
                child = ForkedChild(pid, [sys.executable, "-m", MODULE, *args])
                if pid in self._early_exits:
                    child._end(self._early_exits.pop(pid))
                else:
                    self._children[pid] = child
                return child


_zygote: Zygote | None = None
_zygote_lock = threading.Lock()


def forkable(python: str, env: Mapping[str, str], preexec_fn: object) -> bool:
    """Whether a server with this interpreter, environment and hook can be forked."""
    if os.environ.get(DISABLE_VARIABLE) or python != sys.executable or preexec_fn is not None:
        return False
    # Variables read as an interpreter starts must be those the zygote started with.
    return all(
        env.get(name) == os.environ.get(name)
        for name in {*env, *os.environ}
        if name in STARTUP_VARIABLES or (name.startswith("PYTHON") and name != "PYTHONUNBUFFERED")
    )


def start_server(
    python: str,
    args: list[str],
    *,
    env: Mapping[str, str],
    cwd: str | None = None,
    log: Path,
    preexec_fn: Any = None,
) -> ServerChild:
    """`python -m openhands.agent_server *args` with its output appended to `log`: forked
    from this worker's zygote when it can be, else a fresh process."""
    global _zygote
    if forkable(python, env, preexec_fn):
        with _zygote_lock:
            if _zygote is None or _zygote._process.poll() is not None:
                _zygote = Zygote(log.parent / f"zygote-{os.getpid()}.log")
        return _zygote.fork(args, env, cwd or os.getcwd(), log)
    with open(log, "ab") as handle:
        return subprocess.Popen(
            [python, "-m", MODULE, *args],
            env=dict(env),
            cwd=cwd,
            stdout=handle,
            stderr=subprocess.STDOUT,
            preexec_fn=preexec_fn,
        )
