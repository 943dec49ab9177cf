"""The workflow runner: the program a workflow script runs in (standard library only).

The workflow tool starts this file as its own process (`python -I -S runner.py`, in the
workspace, with the agent's environment: no server secrets) and talks to it over pipes,
one JSON object per line:

    parent -> child (stdin):  {"script": "...", "max_concurrency": 4}        (first line)
                              {"type": "result", "id": 1, "ok": true, "value": "..."}
                              {"type": "result", "id": 1, "ok": false, "error": "..."}
    child -> parent (stdout): {"type": "call", "id": 1, "op": "run_agent", "prompt": "...",
                               "subagent_type": "...", "description": null}
                              {"type": "done", "ok": true, "result": "..."}
                              {"type": "done", "ok": false, "error": "..."}

The script's own `print()` goes to stderr (the parent logs it; its tail is shown when the
workflow fails). `script_problem` is also used by the parent, to refuse a bad script
before a process starts. Its checks (no imports, no dunder or private names, a small set
of builtins) give clear errors for scripts that stray from the `wf` API; they are not the
security boundary: the process is (see `openhands.tools.workflow.executor`).
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import contextlib
import inspect
import itertools
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TextIO

MAX_SCRIPT_CHARS = 20_000
"""The longest workflow script accepted."""

MAX_REDUCE_INPUT_CHARS = 12_000
"""How much serialized input `reduce_agent` passes to its sub-agent; more is cut off."""

_FORBIDDEN_CALLS = frozenset(
    {
        "__import__",
        "breakpoint",
        "compile",
        "delattr",
        "dir",
        "eval",
        "exec",
        "getattr",
        "globals",
        "input",
        "locals",
        "open",
        "setattr",
        "vars",
    }
)

_BUILTINS: dict[str, Any] = {
    name: getattr(builtins, name)
    for name in [
        "abs",
        "all",
        "any",
        "bool",
        "dict",
        "enumerate",
        "filter",
        "float",
        "format",
        "int",
        "isinstance",
        "len",
        "list",
        "map",
        "max",
        "min",
        "print",
        "range",
        "repr",
        "reversed",
        "round",
        "set",
        "sorted",
        "str",
        "sum",
        "tuple",
        "zip",
        "Exception",
        "ExceptionGroup",
        "IndexError",
        "KeyError",
        "RuntimeError",
        "TypeError",
        "ValueError",
    ]
}


def script_problem(script: str) -> str | None:
    """Why `script` is not workflow code (too long, does not parse, strays from the `wf`
    API), or None when it may run."""
    if len(script) > MAX_SCRIPT_CHARS:
        return f"The script has {len(script)} characters; at most {MAX_SCRIPT_CHARS} are allowed."
    try:
        tree = ast.parse(script, filename="<workflow>")
    except SyntaxError as exc:
        return f"The script does not parse: {exc.msg} (line {exc.lineno})."
    mains = [
        node for node in tree.body if isinstance(node, ast.AsyncFunctionDef) and node.name == "main"
    ]
    if len(mains) != 1:
        return "The script must define exactly one `async def main(wf):`."
    arguments = mains[0].args
    if [arg.arg for arg in arguments.args] != ["wf"] or any(
        (
            arguments.posonlyargs,
            arguments.kwonlyargs,
            arguments.vararg,
            arguments.kwarg,
            arguments.defaults,
        )
    ):
        return "The entry point must be exactly `async def main(wf):`."
    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if isinstance(node, ast.Import | ast.ImportFrom):
            return f"Line {line}: workflow scripts may not import modules."
        if isinstance(node, ast.Name) and node.id.startswith("__"):
            return f"Line {line}: dunder names ({node.id}) are not allowed."
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                return f"Line {line}: private attributes (.{node.attr}) are not allowed."
            if _root_name(node) == "wf" and node.attr not in _WF_API:
                return f"Line {line}: wf has no {node.attr!r}; use {', '.join(sorted(_WF_API))}."
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _FORBIDDEN_CALLS
        ):
            return f"Line {line}: `{node.func.id}()` is not available."
    return None


def _root_name(node: ast.Attribute) -> str | None:
    value: ast.expr = node.value
    while isinstance(value, ast.Attribute):
        value = value.value
    return value.id if isinstance(value, ast.Name) else None


# -- the wf object ----------------------------------------------------------------------------


class _Channel:
    """The child's side of the pipes: sends calls, resolves their answers."""

    def __init__(self, out: TextIO, inp: TextIO) -> None:
        self._out = out
        self._in = inp
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[str]] = {}
        self._write_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def send(self, message: dict[str, Any]) -> None:
        with self._write_lock:
            self._out.write(json.dumps(message) + "\n")
            self._out.flush()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        threading.Thread(target=self._read, name="workflow-replies", daemon=True).start()

    async def call(self, **payload: Any) -> str:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()
        call_id = next(self._ids)
        self._pending[call_id] = future
        self.send({"type": "call", "id": call_id, **payload})
        try:
            return await future
        finally:
            self._pending.pop(call_id, None)

    def _read(self) -> None:
        for line in self._in:
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(message, dict) and message.get("type") == "result":
                self._deliver(message)
        self._deliver(None)  # the parent went away: fail whatever is still waiting

    def _deliver(self, message: dict[str, Any] | None) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def resolve() -> None:
            if message is None:
                for future in self._pending.values():
                    if not future.done():
                        future.set_exception(RuntimeError("the workflow tool stopped answering"))
                return
            future = self._pending.get(message.get("id", -1))
            if future is None or future.done():
                return
            if message.get("ok"):
                future.set_result(str(message.get("value", "")))
            else:
                future.set_exception(RuntimeError(str(message.get("error", "sub-agent failed"))))

        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(resolve)


class WorkflowContext:
    """The `wf` object a script's `main(wf)` gets: sub-agent runs and small helpers."""

    def __init__(self, channel: _Channel, max_concurrency: int) -> None:
        self.__channel = channel
        self.__limit = max_concurrency
        self.__semaphore = asyncio.Semaphore(max_concurrency)

    async def run_agent(
        self, prompt: str, subagent_type: str = "general-purpose", description: str | None = None
    ) -> str:
        """Run one sub-agent on `prompt`; return its final report (RuntimeError if it failed)."""
        async with self.__semaphore:
            return await self.__run(prompt, subagent_type, description)

    async def __run(self, prompt: Any, subagent_type: Any, description: Any) -> str:
        return await self.__channel.call(
            op="run_agent",
            prompt=str(prompt),
            subagent_type=str(subagent_type),
            description=None if description is None else str(description),
        )

    async def map_agents(
        self,
        items: Sequence[Any],
        prompt: Callable[[Any], str] | str,
        subagent_type: str = "general-purpose",
        max_concurrency: int | None = None,
        description: Callable[[Any], str] | str | None = None,
    ) -> list[str]:
        """One sub-agent per item, results in item order; failures raise an ExceptionGroup.

        `prompt` (and `description`) is a function of the item or a string where `{item}`
        is replaced by the item (JSON for non-strings). `max_concurrency` may only lower
        the workflow's limit, for this call.
        """
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        semaphore = (
            asyncio.Semaphore(min(max_concurrency, self.__limit))
            if max_concurrency is not None
            else self.__semaphore
        )

        async def one(index: int, item: Any) -> str:
            text = _render(prompt, item)
            label = None if description is None else _render(description, item)
            async with semaphore:
                try:
                    return await self.__run(text, subagent_type, label)
                except Exception as exc:
                    raise RuntimeError(f"[item {index + 1}] {exc}") from exc

        outcomes = await asyncio.gather(
            *(one(index, item) for index, item in enumerate(items)), return_exceptions=True
        )
        failures = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
        if failures:
            raise ExceptionGroup(
                "map_agents: one or more sub-agents failed",
                [f if isinstance(f, Exception) else RuntimeError(str(f)) for f in failures],
            )
        return [str(outcome) for outcome in outcomes]

    async def reduce_agent(
        self,
        items: Any,
        prompt: str,
        subagent_type: str = "general-purpose",
        description: str | None = None,
    ) -> str:
        """One sub-agent that gets `prompt` plus `items` serialized (cut to a size limit)."""
        return await self.run_agent(
            f"{prompt}\n\nInput:\n{_serialize(items)}", subagent_type, description
        )

    async def pipeline(self, items: Sequence[Any], *stages: Callable[[Any], Any]) -> list[Any]:
        """Pass each item through every stage, items independently (no barrier between
        stages). A stage may be sync or async; one that raises turns its item into None."""
        if not stages:
            raise ValueError("pipeline needs at least one stage")

        async def chain(item: Any) -> Any:
            value = item
            try:
                for stage in stages:
                    value = stage(value)
                    if inspect.isawaitable(value):
                        value = await value
            except Exception as exc:
                print(f"pipeline: an item failed: {exc}", file=sys.stderr)
                return None
            return value

        return list(await asyncio.gather(*(chain(item) for item in items)))

    def flatten(self, values: Sequence[Any]) -> list[Any]:
        """Flatten one level of nesting."""
        flat: list[Any] = []
        for value in values:
            if isinstance(value, list):
                flat.extend(value)
            else:
                flat.append(value)
        return flat


_WF_API = frozenset({"run_agent", "map_agents", "reduce_agent", "pipeline", "flatten"})


def _render(template: Callable[[Any], str] | str, item: Any) -> str:
    if callable(template):
        return str(template(item))
    # Plain replacement, not str.format: format fields could reach attributes of the item.
    value = item if isinstance(item, str) else json.dumps(item, default=str)
    return template.replace("{item}", value)


def _serialize(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, default=str)
    if len(text) <= MAX_REDUCE_INPUT_CHARS:
        return text
    cut = len(text) - MAX_REDUCE_INPUT_CHARS
    return text[:MAX_REDUCE_INPUT_CHARS] + f"\n[... {cut} more characters cut off ...]"


def _as_text(result: Any) -> str:
    if result is None:
        return ""
    if isinstance(result, str):
        return result
    try:
        return json.dumps(result, indent=2, default=str)
    except (TypeError, ValueError):
        return str(result)


def _describe_error(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup):
        parts = "\n".join(
            f"  [{number}] {_describe_error(inner)}"
            for number, inner in enumerate(error.exceptions, 1)
        )
        return f"{error.message}:\n{parts}"
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


# -- the program ------------------------------------------------------------------------------


def _execute(script: str, max_concurrency: int, channel: _Channel) -> str:
    problem = script_problem(script)
    if problem is not None:
        raise ValueError(problem)
    namespace: dict[str, Any] = {}
    exec(compile(script, "<workflow>", "exec"), {"__builtins__": dict(_BUILTINS)}, namespace)
    entry = namespace["main"]

    async def run() -> Any:
        channel.start(asyncio.get_running_loop())
        return await entry(WorkflowContext(channel, max_concurrency))

    return _as_text(asyncio.run(run()))


def main() -> int:
    """Run one workflow from the first stdin line; report through the protocol on stdout."""
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # the script's prints (and anything else on fd 1) go to stderr
    sys.stdout = sys.stderr
    channel = _Channel(protocol, sys.stdin)
    try:
        header = json.loads(sys.stdin.readline() or "null")
        if not isinstance(header, dict) or not isinstance(header.get("script"), str):
            raise ValueError("the first line must be {'script': ..., 'max_concurrency': n}")
        result = _execute(header["script"], max(int(header.get("max_concurrency", 1)), 1), channel)
    except BaseException as exc:  # everything the script does wrong is reported, not raised
        channel.send({"type": "done", "ok": False, "error": _describe_error(exc)})
        return 1
    channel.send({"type": "done", "ok": True, "result": result})
    return 0


if __name__ == "__main__":
    sys.exit(main())
