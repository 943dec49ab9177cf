"""`WorkflowExecutor`: runs an LLM-written workflow script in its own process.

Trust model. The script is code the LLM wrote; running it is like running a command in the
agent's terminal, and it gets exactly that power, no more:
- it runs in a separate Python process (`runner.py`, `python -I -S`: standard library only),
  in the workspace and its sandbox (`openhands.sdk.workspace.sandbox`), with the agent's
  environment (`agent_environment()`: none of the server's secrets), in its own session
  whose whole process tree is killed when the run ends, times out, or this process dies
  (`register_process_group`);
- it reaches sub-agents only through the `wf` calls it sends over a pipe; the sub-agents run
  here, under the same rules as the task tool's (registered agents, the parent's LLM);
- the AST checks (no imports, no private names, few builtins) only give clear errors for
  scripts that stray from the `wf` API. They are not a sandbox: the boundary is the same as
  the terminal's (bubblewrap when it is on; nothing but the user's rights when it is off).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any, Final

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.llm import LLM
from openhands.sdk.utils.truncate import truncate_middle
from openhands.sdk.workspace import (
    agent_environment,
    kill_process_group,
    register_process_group,
)
from openhands.sdk.workspace.sandbox import SandboxUnavailableError
from openhands.sdk.workspace.sandbox_popen import sandbox_popen
from openhands.tools.task.manager import DEFAULT_MAX_ITERATIONS, TaskError, TaskManager
from openhands.tools.task.parent import parent_llm, sub_visualizer
from openhands.tools.workflow.runner import script_problem

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_MESSAGE_BYTES",
    "WorkflowExecutor",
    "WorkflowOutcome",
    "WorkflowScriptError",
    "validate_workflow_script",
]

DEFAULT_TIMEOUT: Final[float] = 3600.0
"""Seconds a workflow may run before its process is killed (the default of `timeout`)."""

MAX_MESSAGE_BYTES: Final[int] = 4_000_000
"""The longest protocol line the runner may send (a sub-agent prompt, the result)."""

STDERR_TAIL_BYTES: Final[int] = 4_000
"""How much of the script's printed output is kept, to show when the workflow fails."""

# The runner is started as a script in its own process, so its path is all this module needs
# (importing it through the package would make the package import itself).
_RUNNER: Final[Path] = Path(__file__).with_name("runner.py")


class WorkflowScriptError(OpenHandsError, ValueError):
    """A workflow script was refused before it ran; the message says why."""


def validate_workflow_script(script: str) -> None:
    """Refuse a script that is not valid workflow code (`WorkflowScriptError`)."""
    problem = script_problem(script)
    if problem is not None:
        raise WorkflowScriptError(problem)


class WorkflowOutcome:
    """How one workflow run ended: `ok` with `text` (the result) or not (`text` says why)."""

    def __init__(self, ok: bool, text: str) -> None:
        self.ok = ok
        self.text = text


class WorkflowExecutor:
    """Runs workflow scripts for one conversation, each in its own runner process.

    `timeout`: seconds per workflow, 0 or None for no limit. `max_iterations`: steps per
    sub-agent run. `persistence_dir`: the parent conversation's folder (sub-agents are then
    stored under its `subagents/`), or None to keep them in memory.
    """

    def __init__(
        self,
        working_dir: str,
        *,
        persistence_dir: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_iterations: int = DEFAULT_MAX_ITERATIONS,
    ) -> None:
        self.working_dir = working_dir
        self.persistence_dir = persistence_dir
        self.timeout = timeout or None
        self.max_iterations = max_iterations

    def run(
        self, script: str, *, max_concurrency: int, conversation: Any, llm: LLM | None = None
    ) -> WorkflowOutcome:
        """Validate and run `script`; sub-agents use `llm` or the conversation's LLM."""
        try:
            validate_workflow_script(script)
        except WorkflowScriptError as exc:
            return WorkflowOutcome(False, f"The script was refused: {exc}")
        llm = llm or parent_llm(conversation)
        if llm is None:
            return WorkflowOutcome(False, "The workflow tool needs a conversation with an LLM.")
        manager = TaskManager(
            self.working_dir,
            persistence_dir=self.persistence_dir,
            llm=llm,
            max_iterations=self.max_iterations,
        )
        try:
            return _Run(self, manager, conversation, max_concurrency).execute(script)
        except SandboxUnavailableError as exc:
            return WorkflowOutcome(False, f"The workflow could not start: {exc}")
        finally:
            manager.close()


class _Run:
    """One runner process and the sub-agent calls it makes."""

    def __init__(
        self, owner: WorkflowExecutor, manager: TaskManager, conversation: Any, concurrency: int
    ) -> None:
        self.owner = owner
        self.manager = manager
        self.conversation = conversation
        self.concurrency = max(concurrency, 1)
        self.write_lock = threading.Lock()
        self.stderr_tail: deque[bytes] = deque()
        self.stderr_size = 0
        self.timed_out = threading.Event()

    def execute(self, script: str) -> WorkflowOutcome:
        started = sandbox_popen(
            [sys.executable, "-I", "-S", str(_RUNNER)],
            workspace=self.owner.working_dir,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.owner.working_dir,
            env=agent_environment(),
            start_new_session=True,
        )
        try:
            with started.process as process:
                register_process_group(process.pid)
                outcome = self._talk(process, script)
        finally:
            started.release()
        if self.timed_out.is_set():
            outcome = WorkflowOutcome(
                False, f"The workflow timed out after {self.owner.timeout:g} s and was stopped."
            )
        elif outcome is None:
            outcome = WorkflowOutcome(
                False,
                f"The workflow process ended (exit code {process.returncode}) without a result.",
            )
        if not outcome.ok:
            outcome.text += self._stderr_note()
        return outcome

    def _talk(self, process: subprocess.Popen[bytes], script: str) -> WorkflowOutcome | None:
        """Send the script, serve its calls until it reports; then end the process tree."""
        assert process.stdin is not None and process.stdout is not None
        drain = threading.Thread(
            target=self._drain, args=(process.stderr,), name="workflow-stderr", daemon=True
        )
        drain.start()
        timer = None
        if self.owner.timeout:
            timer = threading.Timer(self.owner.timeout, self._time_out, args=(process.pid,))
            timer.daemon = True
            timer.start()
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="workflow")
        try:
            self._write(process.stdin, {"script": script, "max_concurrency": self.concurrency})
            return self._serve(process.stdout, process.stdin, pool)
        except OSError as exc:  # the runner died before it read its script
            logger.warning("workflow runner pipe failed: %s", exc)
            return None
        finally:
            if timer is not None:
                timer.cancel()
            kill_process_group(process.pid)  # before the wait: the pid must still be ours
            process.wait()
            # Sub-agents still working for a runner that is gone stop after their step.
            self.manager.interrupt()
            pool.shutdown(wait=True, cancel_futures=True)
            drain.join(timeout=5)

    def _serve(
        self, stdout: IO[bytes], stdin: IO[bytes], pool: ThreadPoolExecutor
    ) -> WorkflowOutcome | None:
        while True:
            line = stdout.readline(MAX_MESSAGE_BYTES + 1)
            if not line:
                return None
            if len(line) > MAX_MESSAGE_BYTES:
                return WorkflowOutcome(
                    False, f"The workflow sent a message over {MAX_MESSAGE_BYTES} bytes."
                )
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                return WorkflowOutcome(False, "The workflow runner broke its protocol.")
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "done":
                if message.get("ok"):
                    return WorkflowOutcome(True, str(message.get("result", "")))
                error = str(message.get("error", "unknown error"))
                return WorkflowOutcome(False, f"The workflow failed: {error}")
            if kind == "call" and message.get("op") == "run_agent":
                pool.submit(self._run_agent, stdin, message)
                continue
            return WorkflowOutcome(False, f"The workflow runner sent an unknown message: {kind}")

    def _run_agent(self, stdin: IO[bytes], message: dict[str, Any]) -> None:
        call_id = message.get("id")
        prompt = str(message.get("prompt") or "")
        subagent_type = str(message.get("subagent_type") or "")
        description = message.get("description")
        label = str(description) if description else subagent_type or "workflow"
        try:
            record = self.manager.start(
                prompt,
                description=str(description or ""),
                subagent_type=subagent_type,
                visualizer=sub_visualizer(self.conversation, label),
            )
        except (TaskError, ValueError) as exc:
            reply = {"type": "result", "id": call_id, "ok": False, "error": str(exc)}
        else:
            if record.status == "completed":
                reply = {"type": "result", "id": call_id, "ok": True, "value": record.result or ""}
            else:
                reply = {
                    "type": "result",
                    "id": call_id,
                    "ok": False,
                    "error": record.error or "the sub-agent failed",
                }
        # OSError: the runner is gone (finished, failed or timed out); nobody is waiting.
        with contextlib.suppress(OSError):
            self._write(stdin, reply)

    def _write(self, stdin: IO[bytes], message: dict[str, Any]) -> None:
        data = (json.dumps(message) + "\n").encode()
        with self.write_lock:
            stdin.write(data)
            stdin.flush()

    def _drain(self, stderr: IO[bytes] | None) -> None:
        if stderr is None:
            return
        while chunk := os.read(stderr.fileno(), 8192):
            logger.debug("workflow output: %s", chunk.decode(errors="replace").rstrip())
            self.stderr_tail.append(chunk)
            self.stderr_size += len(chunk)
            while self.stderr_size > STDERR_TAIL_BYTES and len(self.stderr_tail) > 1:
                self.stderr_size -= len(self.stderr_tail.popleft())

    def _stderr_note(self) -> str:
        tail = b"".join(self.stderr_tail).decode(errors="replace").strip()
        if not tail:
            return ""
        return f"\n\nThe script's printed output (end):\n{truncate_middle(tail, STDERR_TAIL_BYTES)}"

    def _time_out(self, pid: int) -> None:
        self.timed_out.set()
        kill_process_group(pid)
