"""Route families loaded on first use (api/lazy.py): the server starts without importing them,
the first request imports only its own, they route like eager ones (405, path parameters),
and the API description lists them. Plus the probes around them: /ready and the root."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from openhands.agent_server.api import LAZY_ROUTERS
from openhands.agent_server.app import create_app
from openhands.agent_server.config import ServerConfig

from .surface_app import SESSION, surface_client

pytestmark = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.UnsupportedFieldAttributeWarning"
)

PROBE = """
import json, sys, tempfile
from pathlib import Path
from fastapi.testclient import TestClient
from openhands.agent_server.app import create_app
from openhands.agent_server.config import ServerConfig
root = Path(tempfile.mkdtemp())
config = ServerConfig.from_env({
    "OH_CONVERSATIONS_PATH": str(root / "c"), "OH_PRELOAD_LITELLM": "false",
    "OH_ALLOWED_HOSTS": "testserver", "OH_SECRET_KEY": "lazy-" + "k" * 40,
})
modules = json.loads(sys.argv[1])
with TestClient(create_app(config)) as client:
    client.get("/health")
    at_start = sorted(m for m in modules if m in sys.modules)
    answer = client.get("/api/workspaces").status_code
    after = sorted(m for m in modules if m in sys.modules)
print(json.dumps({"at_start": at_start, "answer": answer, "after": after}))
"""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with surface_client(tmp_path_factory.mktemp("lazy")) as http:
        yield http


def test_the_server_starts_without_them_and_a_request_loads_only_its_own() -> None:
    modules = [group.module for group in LAZY_ROUTERS]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(modules)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["at_start"] == []
    assert seen["answer"] == 200
    assert seen["after"] == ["openhands.agent_server.api.workspaces"]


def test_they_route_like_eager_routes(client: TestClient) -> None:
    wrong_method = client.get(f"/api/conversations/{'0' * 32}/interrupt")
    unknown_path = client.get("/api/workspaces/no-such-thing")
    unknown_conversation = client.post(f"/api/conversations/{'0' * 32}/interrupt")

    assert wrong_method.status_code == 405
    assert unknown_path.status_code == 404
    assert unknown_conversation.status_code == 404
    assert "does not exist" in unknown_conversation.json()["message"]


def test_the_api_description_lists_them(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]

    assert "/api/workspaces" in paths and "/v1/responses" in paths
    assert "patch" in paths["/api/conversations/{conversation_id}"]
    assert set(paths["/api/conversations"]) == {"get", "post"}
    assert paths["/ready"]["get"] and paths["/"]["get"]


def test_ready_needs_no_key(client: TestClient) -> None:
    answer = client.get("/ready", headers={"X-Session-API-Key": ""})

    assert answer.status_code == 200 and answer.json() == {"status": "ready"}


def test_ready_is_503_while_a_deferred_server_waits_for_its_init(tmp_path: Path) -> None:
    config = ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(tmp_path / "conversations"),
            "OH_PRELOAD_LITELLM": "false",
            "OH_ALLOWED_HOSTS": "testserver",
            "OH_DEFERRED_INIT": "true",
            "OH_SECRET_KEY": "deferred-" + "d" * 40,
        }
    )
    with TestClient(create_app(config)) as client:
        answer = client.get("/ready")

    assert answer.status_code == 503 and answer.json()["status"] == "initializing"


def test_the_root_is_the_page_for_browsers_and_server_info_for_api_clients(
    client: TestClient,
) -> None:
    browser = client.get("/", headers={"Accept": "text/html,*/*;q=0.8", "X-Session-API-Key": ""})
    anything = client.get("/", headers={"Accept": "*/*", "X-Session-API-Key": ""})
    api = client.get("/", headers={"Accept": "application/json"})
    api_without_key = client.get(
        "/", headers={"Accept": "application/json", "X-Session-API-Key": ""}
    )

    assert "text/html" in browser.headers["content-type"]
    assert "text/html" in anything.headers["content-type"]
    clock = ("uptime_seconds", "uptime", "idle_time")
    info = client.get("/server_info").json()
    assert api.status_code == 200
    assert {k: v for k, v in api.json().items() if k not in clock} == {
        k: v for k, v in info.items() if k not in clock
    }
    assert api_without_key.status_code == 401
    assert SESSION not in api.text
