"""The zygote of tests/server_zygote.py: imports the agent server once, then forks a server
per request (read from stdin, one JSON line each) and reports on stdout each child's pid, and
its exit status when it ends. Standard library only until it imports the server's modules: a
forked server must hold no more than a fresh one would, except the modules most servers
import soon after they start (`PRELOADED`), pydantic validators built ahead of their first
use (`_build_deferred_validators`) and litellm's model table read (`_read_model_table`).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from typing import Any

MODULE = "openhands.agent_server"
PRELOADED = (
    "cryptography.fernet",
    "openhands.sdk.llm.openai_compat.client",
    "openhands.sdk.llm.openai_compat.call",
    "openhands.sdk.llm.retry_policy",
    "openhands.sdk.context.conversation_context",
    "openhands.sdk.workspace.extension_files",
    "openhands.tools.terminal.definition",
    "openhands.tools.terminal.self_check",
    "psutil",
    "swagger_ui_bundle",
    "uvicorn.lifespan.on",
    "uvicorn.loops.auto",
)
"""What most forked servers import after they start (the sealing key's cipher at start, the
native LLM client and httpx on the first completion, the terminal on the first command):
imported here once instead of in each child: ~0.03 s of CPU for each of the ~220 servers a
run forks. None of them reads the environment or starts a thread when imported."""


def _write(fd: int, report: dict[str, Any]) -> None:
    os.write(fd, json.dumps(report).encode() + b"\n")


def _serve_until_forked() -> dict[str, Any]:
    """The zygote's loop; returns only in a forked child, with its request."""
    import gc
    import importlib
    import select

    requests, reports = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(2, 1)  # what is printed by accident goes to the zygote's log, not the pipe
    os.close(null)
    for name in (  # what `openhands.agent_server.__main__.main` imports before it serves
        f"{MODULE}.__main__",
        f"{MODULE}.app",
        f"{MODULE}.http_protocol",
        f"{MODULE}.litellm_preload",
        f"{MODULE}.loop_errors",
        f"{MODULE}.ws_protocol",
        f"{MODULE}.services.sandboxing",
        "uvicorn",
        *PRELOADED,
    ):
        importlib.import_module(name)
    _build_deferred_validators()
    _read_model_table()
    # Imported for what it imports; `runpy` runs it afresh in each child, and would warn if
    # it found the module already there.
    main_file = sys.modules.pop(f"{MODULE}.__main__").__file__
    with contextlib.suppress(AttributeError):
        delattr(sys.modules[MODULE], "__main__")
    gc.collect()
    gc.freeze()  # the children touch fewer shared pages when collecting
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    _write(reports, {"ready": True})
    pending = b""
    while True:
        readable, _, _ = select.select([requests, wake_read], [], [])
        if wake_read in readable:
            os.read(wake_read, 4096)
            while True:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                # subprocess's returncode: the exit code, or minus the signal that killed it
                code = os.waitstatus_to_exitcode(status)
                _write(reports, {"pid": pid, "returncode": code})
        if requests not in readable:
            continue
        chunk = os.read(requests, 1 << 20)
        if not chunk:
            sys.exit(0)  # the worker is gone
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            request = json.loads(line)
            threads = len(os.listdir("/proc/self/task"))
            if threads != 1:  # a fork of a threaded process may inherit a held lock
                raise RuntimeError(f"the zygote has {threads} threads; it must have one")
            pid = os.fork()
            if pid == 0:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                return {**request, "main_file": main_file}  # `_become` closes the pipes
            _write(reports, {"pid": pid})


def _build_deferred_validators() -> None:
    """Build the validators pydantic defers (`defer_build=True`, which keeps the server's
    start-up short) for every model imported so far, once, here: each forked server would
    otherwise build the same ones on its first requests (about a quarter of the CPU a small
    goal costs a server). A model whose annotations cannot be resolved yet stays deferred and
    is built where it is first used, as in a fresh server."""
    import pydantic
    from pydantic._internal._mock_val_ser import MockValSer

    models: list[type[pydantic.BaseModel]] = []
    pending = [pydantic.BaseModel]
    while pending:
        for model in pending.pop().__subclasses__():
            models.append(model)
            pending.append(model)
    for model in models:
        if isinstance(model.__dict__.get("__pydantic_validator__"), MockValSer):
            with contextlib.suppress(pydantic.PydanticUserError, NameError):
                model.model_rebuild()


def _read_model_table() -> None:
    """Read litellm's model table (prices, context windows, capabilities: ~1 MB of JSON) once,
    here: each forked server would otherwise parse it on its first completion (~0.015 s)."""
    from openhands.sdk.llm.model_table import table_entry, table_provider

    # A name the table does not list: its rules and routing patterns are compiled too.
    table_entry("zygote-unlisted-model")
    table_provider("zygote-unlisted-model")


def _become(request: dict[str, Any]) -> None:
    """Turn the forked child into the requested server process (as `python -m` starts one)."""
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    for name in os.listdir("/proc/self/fd"):
        if int(name) > 2:
            with contextlib.suppress(OSError):  # the listing's own descriptor, closed already
                os.close(int(name))
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[0] = request["cwd"]  # `python -m` puts the working folder first
    sys.argv = [request["main_file"], *request["args"]]


if __name__ == "__main__":
    import runpy

    _become(_serve_until_forked())
    runpy.run_module(MODULE, run_name="__main__", alter_sys=True)
