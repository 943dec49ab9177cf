"""A conversation's workspace served as static files: what the agent's sandbox shows and
nothing more (no `..` or link out of the workspace, no FIFO), as a page of no origin."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from .surface_app import agent, files, surface_client

pytestmark = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.UnsupportedFieldAttributeWarning"
)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workspace-files")


@pytest.fixture(scope="module")
def client(root: Path) -> Iterator[TestClient]:
    with surface_client(root) as http:
        yield http


@pytest.fixture(scope="module")
def workspace(root: Path) -> Path:
    folder = root / "project"
    (folder / "report").mkdir(parents=True)
    (folder / "index.html").write_text("<h1>home</h1>")
    (folder / "report" / "index.html").write_text("<h1>report</h1>")
    (folder / "report" / "data.csv").write_text("a,b\n1,2\n")
    (folder / "big.bin").write_bytes(os.urandom(300_000))
    (root / "outside.txt").write_text("outside the workspace")
    os.symlink(root / "outside.txt", folder / "escape")
    os.symlink(root / "conversations", folder / "server-files")
    os.mkfifo(folder / "pipe")
    return folder


@pytest.fixture(scope="module")
def base(client: TestClient, workspace: Path) -> str:
    spec = {"kind": "LocalWorkspace", "working_dir": str(workspace)}
    created = client.post(
        "/api/conversations",
        json={"agent": agent("http://127.0.0.1:9/v1", "m"), "workspace": spec},
    )
    assert created.status_code == 201, created.text
    return f"/api/conversations/{created.json()['id']}/workspace"


def test_files_and_folder_pages_are_served(client: TestClient, base: str, workspace: Path) -> None:
    home = client.get(base)
    report = client.get(f"{base}/report/")
    data = client.get(f"{base}/report/data.csv")
    big = client.get(f"{base}/big.bin")

    assert (home.status_code, home.text) == (200, "<h1>home</h1>")
    assert "text/html" in home.headers["content-type"]
    assert report.text == "<h1>report</h1>"
    assert data.text == "a,b\n1,2\n" and "text/csv" in data.headers["content-type"]
    assert big.content == (workspace / "big.bin").read_bytes()
    assert "sandbox" in home.headers["content-security-policy"]


def test_nothing_outside_the_workspace_is_served(client: TestClient, base: str, root: Path) -> None:
    before = files(root)
    answers = {
        "dots": client.get(f"{base}/report/%2e%2e/%2e%2e/outside.txt").status_code,
        "link out": client.get(f"{base}/escape").status_code,
        "server files": client.get(f"{base}/server-files/").status_code,
        "absolute": client.get(f"{base}//etc/passwd").status_code,
        "fifo": client.get(f"{base}/pipe").status_code,
        "missing": client.get(f"{base}/nope.txt").status_code,
    }

    assert answers == {
        "dots": 400,
        "link out": 400,
        "server files": 400,
        "absolute": 404,
        "fifo": 404,
        "missing": 404,
    }
    assert files(root) == before


def test_an_unknown_conversation_or_a_missing_key_is_refused(client: TestClient, base: str) -> None:
    unknown = client.get(f"/api/conversations/{'0' * 32}/workspace/index.html")
    no_key = client.get(f"{base}/index.html", headers={"X-Session-API-Key": "wrong"})

    assert unknown.status_code == 404 and no_key.status_code == 401
