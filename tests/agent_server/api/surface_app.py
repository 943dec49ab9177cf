"""An in-process app (FastAPI's TestClient) for the route tests of the reference's working
surface: a session key, a sealing key, its own folders."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from openhands.agent_server.app import create_app
from openhands.agent_server.config import ServerConfig

SESSION = "surface-session-key"
HEADERS = {"X-Session-API-Key": SESSION}


def surface_client(root: Path, **env: str) -> TestClient:
    """A client of a fresh app whose files all live under `root` (enter it to start the app)."""
    config = ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(root / "conversations"),
            "OH_WORKSPACE_PATH": str(root / "workspaces"),
            "OH_PRELOAD_LITELLM": "false",
            "OH_ALLOWED_HOSTS": "testserver",
            "OH_SESSION_API_KEYS": SESSION,
            "OH_SECRET_KEY": "surface-sealing-key-" + "s" * 40,
            # `make pytest-sandbox-bwrap` / `-off` run the suite with the sandbox on and off.
            **{k: v for k, v in os.environ.items() if k == "OH_SANDBOX"},
            **env,
        }
    )
    return TestClient(create_app(config), headers=HEADERS)


def agent(base_url: str, model: str, **llm: object) -> dict[str, Any]:
    """An agent spec whose LLM is `model` on the fake server at `base_url`."""
    spec = {
        "model": f"openai/{model}",
        "base_url": base_url,
        "api_key": "sk-fake",
        "num_retries": 0,
    }
    return {"kind": "Agent", "llm": {**spec, **llm}}


def files(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under `root`: its mode and content (to show that nothing was written).

    The per-event copies (`events/event-*.json`) are left out: a background thread writes
    them from the log, which is what this compares.
    """
    return {
        str(p.relative_to(root)): (p.stat().st_mode, p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file() and not (p.parent.name == "events" and p.name.startswith("event-"))
    }
