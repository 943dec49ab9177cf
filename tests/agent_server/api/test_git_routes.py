"""The git routes read the user's repository (never the shadow one), server-wide and per
conversation, and a hostile repository configuration runs nothing."""

from __future__ import annotations

import json
import subprocess
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..harness import ServerProcess

pytestmark = pytest.mark.slow

KEY = "git-routes-key"
GIT = [
    "git",
    "-c",
    "user.name=Tester",
    "-c",
    "user.email=t@example.com",
    "-c",
    "init.defaultBranch=main",
]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run([*GIT, *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


class FakeGitHub:
    """A GitHub API answering /user/repos from a list, recording the token it was sent."""

    def __init__(self, repos: list[dict[str, Any]]) -> None:
        self.repos = repos
        self.tokens: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.tokens.append(self.headers.get("Authorization", ""))
                body = json.dumps(outer.repos).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub(
        [
            {"id": 1, "full_name": "me/alpha", "private": True, "default_branch": "main"},
            {"id": 2, "full_name": "me/beta", "private": False, "stargazers_count": 5},
        ]
    )
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory, github: FakeGitHub) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("git-server")
    env = {"OH_SESSION_API_KEYS": KEY, "OH_GITHUB_API_URL": github.url}
    process = ServerProcess(root / "conversations", env=env).start()
    yield process
    process.stop()


@pytest.fixture
def api(keyed: ServerProcess) -> Iterator[httpx.Client]:
    with keyed.client() as client:
        yield client


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with two commits and then: one file changed, one added, one deleted."""
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "-q")
    (folder / "keep.txt").write_text("one\n")
    (folder / "gone.txt").write_text("bye\n")
    git(folder, "add", ".")
    git(folder, "commit", "-qm", "first")
    (folder / "keep.txt").write_text("one\ntwo\n")
    git(folder, "commit", "-qam", "second")
    (folder / "keep.txt").write_text("one\ntwo\nthree\n")
    (folder / "new file.txt").write_text("fresh\n")
    (folder / "gone.txt").unlink()
    return folder


def create(api: httpx.Client, working_dir: Path) -> str:
    body = {
        "agent": {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "x"}},
        "workspace": {"kind": "LocalWorkspace", "working_dir": str(working_dir)},
    }
    answer = api.post("/api/conversations", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def test_changes_list_modified_added_and_deleted_files_against_head(
    api: httpx.Client, repo: Path
) -> None:
    answer = api.get("/api/git/changes", params={"path": str(repo)})
    assert answer.status_code == 200, answer.text
    assert answer.json() == [
        {"status": "DELETED", "path": "gone.txt"},
        {"status": "UPDATED", "path": "keep.txt"},
        {"status": "ADDED", "path": "new file.txt"},
    ]


def test_an_explicit_ref_compares_with_that_commit(api: httpx.Client, repo: Path) -> None:
    first = git(repo, "rev-list", "--max-parents=0", "HEAD")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "third")
    assert api.get("/api/git/changes", params={"path": str(repo), "ref": "HEAD"}).json() == []
    against_first = api.get("/api/git/changes", params={"path": str(repo), "ref": first}).json()
    assert {c["path"] for c in against_first} == {"gone.txt", "keep.txt", "new file.txt"}


def test_diff_gives_the_file_at_the_base_and_on_disk(api: httpx.Client, repo: Path) -> None:
    answer = api.get("/api/git/diff", params={"path": str(repo / "keep.txt")})
    assert answer.json() == {"original": "one\ntwo", "modified": "one\ntwo\nthree"}
    deleted = api.get("/api/git/diff", params={"path": str(repo / "gone.txt")}).json()
    assert deleted == {"original": "bye", "modified": ""}


def test_commits_are_newest_first_and_a_commits_changes_and_diff_are_read_from_git(
    api: httpx.Client, repo: Path
) -> None:
    page = api.get("/api/git/commits", params={"path": str(repo), "limit": 1}).json()
    assert page["has_more"] is True
    [newest] = page["commits"]
    assert (newest["subject"], newest["author"]) == ("second", "Tester")
    assert newest["sha"].startswith(newest["short_sha"])
    full = api.get("/api/git/commits", params={"path": str(repo)}).json()
    assert [c["subject"] for c in full["commits"]] == ["second", "first"]
    assert full["has_more"] is False

    changes = api.get(
        f"/api/git/commits/{newest['sha']}/changes", params={"path": str(repo)}
    ).json()
    assert changes == [{"status": "UPDATED", "path": "keep.txt"}]
    first = full["commits"][1]["sha"]
    root_changes = api.get(f"/api/git/commits/{first}/changes", params={"path": str(repo)})
    assert {c["path"] for c in root_changes.json()} == {"gone.txt", "keep.txt"}
    diff = api.get(
        "/api/git/diff", params={"path": str(repo / "keep.txt"), "commit": newest["short_sha"]}
    ).json()
    assert diff == {"original": "one\n", "modified": "one\ntwo\n"}


def test_a_folder_that_is_no_repository_has_no_changes(api: httpx.Client, tmp_path: Path) -> None:
    (tmp_path / "plain.txt").write_text("x")
    assert api.get("/api/git/changes", params={"path": str(tmp_path)}).json() == []
    assert api.get("/api/git/commits", params={"path": str(tmp_path)}).json() == {
        "commits": [],
        "has_more": False,
    }
    diff = api.get("/api/git/diff", params={"path": str(tmp_path / "plain.txt")})
    assert diff.json() == {"original": None, "modified": None}


def test_bad_input_is_refused_naming_the_field(api: httpx.Client, repo: Path) -> None:
    relative = api.get("/api/git/changes", params={"path": "repo"})
    assert relative.status_code == 422 and "path" in relative.json()["message"]
    dash = api.get("/api/git/changes", params={"path": str(repo), "ref": "--output=/tmp/x"})
    assert dash.status_code == 422 and "ref" in dash.json()["message"]
    not_hex = api.get("/api/git/commits/not-a-sha/changes", params={"path": str(repo)})
    assert not_hex.status_code == 422 and "sha" in not_hex.json()["message"]
    missing = api.get("/api/git/changes")
    assert missing.status_code == 422 and "path" in missing.json()["message"]
    limit = api.get("/api/git/commits", params={"path": str(repo), "limit": 0})
    assert limit.status_code == 422 and "limit" in limit.json()["message"]


def test_an_unknown_ref_or_commit_is_a_400_that_says_so(api: httpx.Client, repo: Path) -> None:
    unknown = api.get("/api/git/changes", params={"path": str(repo), "ref": "no-such-branch"})
    assert unknown.status_code == 400 and "no-such-branch" in unknown.json()["message"]
    commit = api.get("/api/git/commits/deadbeef/changes", params={"path": str(repo)})
    assert commit.status_code == 400
    both = api.get(
        "/api/git/diff",
        params={"path": str(repo / "keep.txt"), "ref": "HEAD", "commit": "deadbeef"},
    )
    assert both.status_code == 400 and "exclusive" in both.json()["message"]


def test_every_route_needs_the_key(keyed: ServerProcess, repo: Path) -> None:
    with keyed.client(api_key="") as anonymous:
        for url in (
            "/api/git/changes",
            "/api/git/diff",
            "/api/git/commits",
            "/api/git/commits/abcd/changes",
            f"/api/conversations/{uuid.uuid4()}/git/changes",
        ):
            assert anonymous.get(url, params={"path": str(repo)}).status_code == 401, url
        assert (
            anonymous.get("/api/git/repositories/search", params={"provider": "github"}).status_code
            == 401
        )


def test_the_server_s_own_files_are_refused_where_the_sandbox_hides_them(
    api: httpx.Client, keyed: ServerProcess
) -> None:
    sandboxed = api.get("/server_info").json()["sandbox"]["active"]
    answer = api.get("/api/git/changes", params={"path": str(keyed.conversations)})
    # Without a sandbox (OH_SANDBOX=off) the agent sees every file, and so do these routes.
    assert answer.status_code == (403 if sandboxed else 200), answer.text


def test_a_hostile_repository_configuration_runs_nothing(
    api: httpx.Client, repo: Path, tmp_path: Path
) -> None:
    markers = {name: repo / f"ran-{name}" for name in ("fsmonitor", "clean", "textconv", "hook")}
    script = tmp_path / "evil.sh"
    script.write_text('#!/bin/sh\ntouch "$1"\ncat\n')
    script.chmod(0o755)
    git(repo, "config", "core.fsmonitor", f"{script} {markers['fsmonitor']}")
    git(repo, "config", "filter.evil.clean", f"{script} {markers['clean']}")
    git(repo, "config", "filter.evil.required", "true")
    git(repo, "config", "diff.evil.textconv", f"{script} {markers['textconv']}")
    git(repo, "config", "core.pager", f"{script} {markers['hook']}")
    hooks = repo / ".git" / "hooks"
    (hooks / "post-index-change").write_text(f"#!/bin/sh\ntouch {markers['hook']}\n")
    (hooks / "post-index-change").chmod(0o755)
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    (repo / "keep.txt").touch()  # stat-dirty: git would run the clean filter to compare

    for route, path in (("changes", repo), ("diff", repo / "keep.txt"), ("commits", repo)):
        answer = api.get(f"/api/git/{route}", params={"path": str(path)})
        assert answer.status_code == 200, answer.text
    assert [name for name, marker in markers.items() if marker.exists()] == []
    changed = {c["path"] for c in api.get("/api/git/changes", params={"path": str(repo)}).json()}
    assert "keep.txt" in changed


def test_per_conversation_routes_read_its_working_directory_and_nothing_outside(
    api: httpx.Client, repo: Path, tmp_path: Path
) -> None:
    conversation = create(api, repo)
    base = f"/api/conversations/{conversation}/git"
    changes = api.get(f"{base}/changes", params={"path": str(repo)})
    assert changes.status_code == 200, changes.text
    assert {c["path"] for c in changes.json()} == {"gone.txt", "keep.txt", "new file.txt"}
    diff = api.get(f"{base}/diff", params={"path": str(repo / "keep.txt")}).json()
    assert diff["modified"] == "one\ntwo\nthree"
    commits = api.get(f"{base}/commits", params={"path": str(repo)}).json()
    sha = commits["commits"][0]["sha"]
    assert api.get(f"{base}/commits/{sha}/changes", params={"path": str(repo)}).status_code == 200

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    refused = api.get(f"{base}/changes", params={"path": str(outside)})
    assert refused.status_code == 422 and "path" in refused.json()["message"]
    (repo / "link").symlink_to(outside)
    through_link = api.get(f"{base}/changes", params={"path": str(repo / "link")})
    assert through_link.status_code == 422
    dotdot = api.get(f"{base}/changes", params={"path": f"{repo}/../elsewhere"})
    assert dotdot.status_code == 422


def test_an_unknown_conversation_is_404(api: httpx.Client, repo: Path) -> None:
    for route in ("changes", "diff", "commits", "commits/abcd/changes"):
        answer = api.get(
            f"/api/conversations/{uuid.uuid4()}/git/{route}", params={"path": str(repo)}
        )
        assert answer.status_code == 404, (route, answer.text)


def test_the_checkpoints_shadow_repository_is_not_what_is_read(
    api: httpx.Client, tmp_path: Path
) -> None:
    # A conversation's checkpoints keep a shadow repository; a plain folder stays "no repo".
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.txt").write_text("a")
    conversation = create(api, folder)
    taken = api.post(f"/api/conversations/{conversation}/checkpoints", json={})
    assert taken.status_code == 200, taken.text
    base = f"/api/conversations/{conversation}/git"
    assert api.get(f"{base}/changes", params={"path": str(folder)}).json() == []
    assert not (folder / ".git").exists()


def test_repository_search_uses_the_stored_token(api: httpx.Client, github: FakeGitHub) -> None:
    params = {"provider": "github"}
    assert api.get("/api/git/repositories/search", params=params).json() == {
        "items": [],
        "next_page_id": None,
        "missing_token": True,
    }
    stored = api.put(
        "/api/settings/secrets", json={"name": "GITHUB_TOKEN", "value": "ghp-test-token"}
    )
    assert stored.status_code == 200, stored.text
    found = api.get("/api/git/repositories/search", params={**params, "query": "ALP"})
    assert found.status_code == 200, found.text
    page = found.json()
    assert [(r["full_name"], r["is_public"], r["main_branch"]) for r in page["items"]] == [
        ("me/alpha", False, "main")
    ]
    assert github.tokens[-1] == "Bearer ghp-test-token"
    first = api.get("/api/git/repositories/search", params={**params, "limit": 1}).json()
    assert [r["full_name"] for r in first["items"]] == ["me/alpha"]
    rest = api.get(
        "/api/git/repositories/search",
        params={**params, "limit": 1, "page_id": first["next_page_id"]},
    ).json()
    assert [r["full_name"] for r in rest["items"]] == ["me/beta"]
    gitlab = api.get("/api/git/repositories/search", params={"provider": "gitlab"})
    assert gitlab.status_code == 400
    bad = api.get("/api/git/repositories/search", params={"provider": "svn"})
    assert bad.status_code == 422 and "provider" in bad.json()["message"]
