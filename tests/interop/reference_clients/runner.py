"""Runs the flows of this folder's scripts in one long-lived process of the reference's Python.

`python runner.py` reads one request per line on stdin, `{"script", "flow", "config",
"home"}`, runs `flow_<flow>(config)` of `<script>` (a file of this folder, imported once) with
`home` as its working directory and HOME, and answers on stdout with one line per request:
`{"result": ...}` or `{"error": "<traceback>"}`. What a flow prints goes to stderr.

Importing the reference SDK (litellm with it) costs seconds of CPU; a runner pays it once for
all the flows of a test process instead of once per flow. It imports only the reference's
packages and the standard library, as the scripts do.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
_scripts: dict[str, ModuleType] = {}


def _script(name: str) -> ModuleType:
    if name not in _scripts:
        path = HERE / name
        if path.parent != HERE or not path.is_file():
            raise ValueError(f"{name!r} is not a script of {HERE}")
        spec = importlib.util.spec_from_file_location(f"reference_client_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _scripts[name] = module
    return _scripts[name]


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    os.environ["HOME"] = request["home"]
    os.chdir(request["home"])
    try:
        flow = getattr(_script(request["script"]), f"flow_{request['flow']}")
        return {"result": flow(request["config"])}
    except BaseException:  # the test shows the traceback; the runner takes the next request
        return {"error": traceback.format_exc()}


def main() -> None:
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # a flow's own prints (and its libraries') must not mix with the answers
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if line.strip():
            answers.write(json.dumps(_answer(json.loads(line)), default=str) + "\n")
            answers.flush()


if __name__ == "__main__":
    main()
