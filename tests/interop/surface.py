"""Dump the public surface of the installed `openhands` packages as JSON, in either venv.

`python tests/interop/surface.py > surface.json` with this project's Python, then with the
reference's (the interop venv), and compare the two files: for every public name of the
modules below, its kind (model, class, function), and for a pydantic model its fields with
their defaults, whether it is frozen, its extra-field policy and the signatures of the
methods scripts call. A development tool: `test_public_surface.py` pins behaviour, not
these raw dumps (the two SDKs implement the same names differently).
"""

import enum
import importlib
import inspect
import json
import os
import sys

os.environ.setdefault("OPENHANDS_SUPPRESS_BANNER", "1")
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

MODULES = [
    "openhands.sdk",
    "openhands.sdk.event",
    "openhands.sdk.llm",
    "openhands.sdk.tool",
    "openhands.sdk.agent",
    "openhands.sdk.conversation",
    "openhands.sdk.security",
    "openhands.sdk.hooks",
    "openhands.sdk.workspace",
    "openhands.sdk.mcp",
    "openhands.sdk.context",
    "openhands.sdk.context.condenser",
    "openhands.sdk.security.confirmation_policy",
    "openhands.tools.terminal",
    "openhands.tools.file_editor",
    "openhands.tools.task_tracker",
    "openhands.tools.preset.default",
    "openhands.tools.glob",
    "openhands.tools.grep",
    "openhands.tools.delegate",
    "openhands.tools.task",
    "openhands.sdk.tool.builtins",
]


def default_of(f):
    if f.default is not PydanticUndefined:
        d = f.default
    elif f.default_factory is not None:
        try:
            d = f.default_factory()
        except TypeError:
            return "<factory>"
    else:
        return "<required>"
    if isinstance(d, enum.Enum):
        d = d.value
    if isinstance(d, BaseModel):
        return {"model": type(d).__name__}
    try:
        json.dumps(d)
        return d
    except TypeError:
        return repr(d)[:80]


def model_info(cls):
    cfg = cls.model_config
    fields = {}
    for name, f in cls.model_fields.items():
        fields[name] = {
            "default": default_of(f),
            "frozen": bool(f.frozen),
            "ann": str(f.annotation)[:120],
        }
    return {
        "type": "model",
        "extra": cfg.get("extra"),
        "frozen": bool(cfg.get("frozen")),
        "fields": fields,
        "bases": [b.__name__ for b in cls.__mro__[1:6]],
    }


def sig(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return None


out = {}
for modname in MODULES:
    try:
        mod = importlib.import_module(modname)
    except Exception as e:
        out[modname] = {"error": repr(e)[:200]}
        continue
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
    entries = {}
    for n in names:
        try:
            obj = getattr(mod, n)
        except Exception as e:
            entries[n] = {"type": "error", "error": repr(e)[:100]}
            continue
        if inspect.isclass(obj) and issubclass(obj, BaseModel):
            info = model_info(obj)
            methods = {}
            for m in (
                "create",
                "model_validate",
                "load",
                "to_mcp_arguments",
                "from_chat_tool_call",
                "from_text",
            ):
                if m in vars(obj) or any(
                    m in vars(b) for b in obj.__mro__[1:] if b.__module__.startswith("openhands")
                ):
                    methods[m] = sig(getattr(obj, m))
            info["methods"] = methods
            entries[n] = info
        elif inspect.isclass(obj):
            entries[n] = {
                "type": "class",
                "init": sig(obj),
                "bases": [b.__name__ for b in obj.__mro__[1:4]],
            }
        elif callable(obj):
            entries[n] = {"type": "function", "sig": sig(obj)}
        else:
            entries[n] = {"type": type(obj).__name__}
    out[modname] = entries
json.dump(out, sys.stdout, indent=1, sort_keys=True, default=str)
