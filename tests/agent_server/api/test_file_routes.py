"""The file routes: upload, download, folders, archives, trajectories and the folder picker,
server-wide and per conversation, with exactly the agent's sandbox view."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ..harness import ServerProcess

pytestmark = pytest.mark.slow

KEY = "file-routes-key"
MAX_BODY = 1024 * 1024
GIT = ["git", "-c", "user.name=T", "-c", "user.email=t@e", "-c", "init.defaultBranch=main"]


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("file-server")
    home = root / "home"
    for folder in ("projects", "notes", ".hidden-config"):
        (home / folder).mkdir(parents=True)
    (home / "a-file.txt").write_text("x")
    env = {"OH_SESSION_API_KEYS": KEY, "HOME": str(home), "OH_MAX_BODY_BYTES": str(MAX_BODY)}
    process = ServerProcess(root / "conversations", env=env).start()
    yield process
    process.stop()


@pytest.fixture
def api(keyed: ServerProcess) -> Iterator[httpx.Client]:
    with keyed.client() as client:
        yield client


def sandboxed(api: httpx.Client) -> bool:
    return api.get("/server_info").json()["sandbox"]["active"]


def create(api: httpx.Client, working_dir: Path) -> str:
    working_dir.mkdir(parents=True, exist_ok=True)
    body = {
        "agent": {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "x"}},
        "workspace": {"kind": "LocalWorkspace", "working_dir": str(working_dir)},
    }
    answer = api.post("/api/conversations", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def upload(api: httpx.Client, base: str, path: Path | str, data: bytes) -> httpx.Response:
    return api.post(f"{base}/upload", params={"path": str(path)}, files={"file": ("f", data)})


def test_upload_download_and_make_folders_server_wide(api: httpx.Client, tmp_path: Path) -> None:
    target = tmp_path / "new" / "deeper" / "data.bin"
    payload = bytes(range(256)) * 100
    answer = upload(api, "/api/file", target, payload)
    assert answer.json() == {"success": True, "file_size": len(payload)}
    assert target.read_bytes() == payload
    down = api.get("/api/file/download", params={"path": str(target)})
    assert down.status_code == 200 and down.content == payload
    assert down.headers["content-type"] == "application/octet-stream"
    assert "data.bin" in down.headers["content-disposition"]
    made = api.post("/api/file/create_directory", params={"path": str(tmp_path / "m" / "n")})
    assert made.json() == {"success": True} and (tmp_path / "m" / "n").is_dir()
    again = api.post("/api/file/create_directory", params={"path": str(tmp_path / "m" / "n")})
    assert again.status_code == 200


def test_bad_paths_get_clear_answers(api: httpx.Client, tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x")
    os.mkfifo(tmp_path / "pipe")
    assert api.get("/api/file/download", params={"path": str(tmp_path / "nope")}).status_code == 404
    assert api.get("/api/file/download", params={"path": str(tmp_path)}).status_code == 400
    assert api.get("/api/file/download", params={"path": str(tmp_path / "pipe")}).status_code == 400
    relative = api.get("/api/file/download", params={"path": "file.txt"})
    assert relative.status_code == 422 and "path" in relative.json()["message"]
    over_file = api.post("/api/file/create_directory", params={"path": str(tmp_path / "file.txt")})
    assert over_file.status_code == 400
    onto_folder = upload(api, "/api/file", tmp_path, b"x")
    assert onto_folder.status_code == 400
    missing_file = api.post("/api/file/upload", params={"path": str(tmp_path / "x")})
    assert missing_file.status_code == 422 and "file" in missing_file.json()["message"]


def test_an_upload_past_the_body_limit_is_refused_and_nothing_written(
    api: httpx.Client, tmp_path: Path
) -> None:
    answer = upload(api, "/api/file", tmp_path / "big.bin", b"x" * (MAX_BODY + 1))
    assert answer.status_code == 413
    assert not (tmp_path / "big.bin").exists()


def test_the_servers_own_files_are_refused_also_behind_links(
    api: httpx.Client, keyed: ServerProcess, tmp_path: Path
) -> None:
    if not sandboxed(api):
        pytest.skip("the agent's processes run without a sandbox here (OH_SANDBOX)")
    key_file = keyed.conversations.parent / ".secret_key"
    (tmp_path / "link").symlink_to(keyed.conversations)
    (tmp_path / "key").symlink_to(key_file)
    refused = [
        api.get("/api/file/download", params={"path": str(key_file)}),
        api.get("/api/file/download", params={"path": str(tmp_path / "key")}),
        api.get("/api/file/download", params={"path": f"{tmp_path}/link/../{key_file.name}"}),
        upload(api, "/api/file", tmp_path / "link" / "planted.json", b"{}"),
        upload(api, "/api/file", keyed.conversations / "planted.json", b"{}"),
        api.post("/api/file/create_directory", params={"path": str(keyed.conversations / "x")}),
        api.get("/api/file/search_subdirs", params={"path": str(keyed.conversations)}),
        api.get("/api/file/archive", params={"path": str(keyed.conversations), "format": "tar.gz"}),
    ]
    assert [a.status_code for a in refused] == [403] * len(refused), [a.text for a in refused]
    assert not (keyed.conversations / "planted.json").exists()
    assert not (keyed.conversations / "x").exists()
    listing = api.get("/api/file/search_subdirs", params={"path": str(keyed.conversations.parent)})
    assert "conversations" not in [item["name"] for item in listing.json()["items"]]


def test_per_conversation_paths_stay_inside_its_working_directory(
    api: httpx.Client, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    base = f"/api/conversations/{create(api, work)}/file"
    assert upload(api, base, work / "in.txt", b"inside").json()["file_size"] == 6
    assert api.get(f"{base}/download", params={"path": str(work / "in.txt")}).content == b"inside"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not the conversation's")
    (work / "escape").symlink_to(outside)
    for path in (outside / "x.txt", work / "escape" / "x.txt", f"{work}/../outside/x.txt"):
        answer = upload(api, base, path, b"planted")
        assert answer.status_code == 422 and "path" in answer.json()["message"], path
    read = api.get(f"{base}/download", params={"path": str(work / "escape" / "secret.txt")})
    assert read.status_code == 422
    made = api.post(f"{base}/create_directory", params={"path": str(outside / "made")})
    assert made.status_code == 422
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_a_conversation_whose_folder_holds_the_servers_files_is_refused(
    api: httpx.Client, keyed: ServerProcess
) -> None:
    root = keyed.conversations.parent  # holds the conversations folder and the key file
    body = {
        "agent": {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "x"}},
        "workspace": {"kind": "LocalWorkspace", "working_dir": str(root)},
    }
    before = api.get("/api/conversations/count").json()
    answer = api.post("/api/conversations", json=body)
    assert answer.status_code == 422, answer.text
    assert "working_dir" in answer.text, answer.text
    assert api.get("/api/conversations/count").json() == before  # nothing was stored
    # Server-wide, the same files stay out of reach of the file routes.
    refused = [
        api.get("/api/file/download", params={"path": str(root / ".secret_key")}),
        upload(api, "/api/file", keyed.conversations / "planted.json", b"{}"),
    ]
    assert [a.status_code for a in refused] == [403] * len(refused), [a.text for a in refused]
    assert not (keyed.conversations / "planted.json").exists()


def test_an_unknown_conversation_is_404_and_a_malformed_id_422(
    api: httpx.Client, tmp_path: Path
) -> None:
    for prefix, status in (
        (f"/api/conversations/{uuid.uuid4()}", 404),
        ("/api/conversations/x", 422),
    ):
        base = f"{prefix}/file"
        answers = [
            upload(api, base, tmp_path / "a", b"a"),
            api.get(f"{base}/download", params={"path": str(tmp_path / "a")}),
            api.post(f"{base}/create_directory", params={"path": str(tmp_path / "d")}),
            api.get(f"{base}/archive", params={"path": str(tmp_path)}),
            api.get(f"{base}/download-trajectory/{uuid.uuid4()}"),
        ]
        assert [a.status_code for a in answers] == [status] * len(answers), prefix
    assert not (tmp_path / "a").exists() and not (tmp_path / "d").exists()


def test_a_tar_gz_archive_holds_what_the_agent_sees(api: httpx.Client, tmp_path: Path) -> None:
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / "src" / "main.py").write_text("print(1)\n")
    (work / "node_modules" / "dep").mkdir(parents=True)
    (work / "node_modules" / "dep" / "index.js").write_text("x")
    (work / "outside-link").symlink_to(tmp_path)
    base = f"/api/conversations/{create(api, work)}/file"
    answer = api.get(f"{base}/archive", params={"path": str(work), "format": "tar.gz"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/gzip"
    with tarfile.open(fileobj=io.BytesIO(answer.content)) as tar:
        names = set(tar.getnames())
        assert tar.extractfile("proj/src/main.py").read() == b"print(1)\n"  # type: ignore[union-attr]
    assert "proj/archive_manifest.json" in names
    assert not any("node_modules" in n or "outside-link" in n for n in names)
    full = api.get(
        f"{base}/archive",
        params={
            "path": str(work),
            "format": "tar.gz",
            "use_default_excludes": False,
            "exclude": "src",
        },
    )
    with tarfile.open(fileobj=io.BytesIO(full.content)) as tar:
        names = set(tar.getnames())
    assert "proj/node_modules/dep/index.js" in names and "proj/src/main.py" not in names


def test_a_git_delta_archive_is_a_patch_that_applies(api: httpx.Client, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run([*GIT, "init", "-q"], cwd=repo, check=True)
    (repo / "a.txt").write_text("one\n")
    subprocess.run([*GIT, "add", "."], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "c"], cwd=repo, check=True)
    marker = repo / "filter-ran"
    subprocess.run(
        ["git", "config", "filter.evil.clean", f"touch {marker}; cat"], cwd=repo, check=True
    )
    subprocess.run(["git", "config", "core.fsmonitor", f"touch {marker}"], cwd=repo, check=True)
    (repo / ".gitattributes").write_text("*.txt filter=evil\n")
    git_config = (repo / ".git" / "config").read_text()
    (repo / "a.txt").write_text("one\ntwo\n")
    (repo / "b.txt").write_text("new\n")
    answer = api.get("/api/file/archive", params={"path": str(repo), "base_ref": "HEAD"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/x-patch")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True)
    assert answer.headers["x-archive-base-commit"] == head.stdout.strip()
    assert answer.headers["x-archive-branch"] == "main"
    assert (repo / ".git" / "config").read_text() == git_config
    assert not marker.exists()  # the repository's filter and fsmonitor ran nothing
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    (clone / "patch").write_bytes(answer.content)
    applied = subprocess.run(["git", "apply", "patch"], cwd=clone, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    assert (clone / "a.txt").read_text() == "one\ntwo\n" and (
        clone / "b.txt"
    ).read_text() == "new\n"
    status = subprocess.run(
        [
            "git",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "filter.evil.clean=cat",
            "status",
            "--porcelain",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert status.stdout.splitlines() == [" M a.txt", "?? .gitattributes", "?? b.txt"]
    bad = api.get("/api/file/archive", params={"path": str(repo), "base_ref": "--output=x"})
    assert bad.status_code == 400
    plain = tmp_path / "plain"
    plain.mkdir()
    assert api.get("/api/file/archive", params={"path": str(plain)}).status_code == 400


def test_a_trajectory_is_a_zip_without_sealed_secrets(api: httpx.Client, tmp_path: Path) -> None:
    conversation = create(api, tmp_path / "t")
    base = f"/api/conversations/{conversation}/file"
    for url in (
        f"/api/file/download-trajectory/{conversation}",
        f"{base}/download-trajectory/{conversation}",
    ):
        answer = api.get(url)
        assert answer.status_code == 200, answer.text
        with zipfile.ZipFile(io.BytesIO(answer.content)) as archive:
            names = archive.namelist()
        hexid = uuid.UUID(conversation).hex
        assert f"{hexid}/base_state.json" in names
        assert not any(name.endswith(".sealed") for name in names)
    other = api.get(f"{base}/download-trajectory/{uuid.uuid4()}")
    assert other.status_code == 422 and "conversation_id" in other.json()["message"]
    assert api.get(f"/api/file/download-trajectory/{uuid.uuid4()}").status_code == 404


def test_the_folder_picker_lists_folders_only(api: httpx.Client, tmp_path: Path) -> None:
    home = api.get("/api/file/home").json()
    assert [f["label"] for f in home["favorites"]] == ["notes", "projects"]
    assert home["locations"] == [{"label": "/", "path": "/"}]
    with_hidden = api.get("/api/file/home", params={"include_hidden": True}).json()
    assert ".hidden-config" in [f["label"] for f in with_hidden["favorites"]]
    for name in ("b", "A", "c", ".dot"):
        (tmp_path / name).mkdir()
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "b")
    first = api.get("/api/file/search_subdirs", params={"path": str(tmp_path), "limit": 2}).json()
    assert [i["name"] for i in first["items"]] == ["A", "b"]
    assert first["items"][0]["path"] == str(tmp_path / "A")
    rest = api.get(
        "/api/file/search_subdirs",
        params={"path": str(tmp_path), "limit": 2, "page_id": first["next_page_id"]},
    ).json()
    assert ([i["name"] for i in rest["items"]], rest["next_page_id"]) == (["c"], None)
    assert (
        api.get("/api/file/search_subdirs", params={"path": str(tmp_path / "file")}).status_code
        == 400
    )
    assert (
        api.get("/api/file/search_subdirs", params={"path": str(tmp_path / "no")}).status_code
        == 404
    )
    assert (
        api.get("/api/file/search_subdirs", params={"path": str(tmp_path), "limit": 0}).status_code
        == 422
    )


def test_every_route_needs_the_key(keyed: ServerProcess, api: httpx.Client, tmp_path: Path) -> None:
    base = f"/api/conversations/{create(api, tmp_path / 'k')}/file"
    with keyed.client(api_key="") as anonymous:
        answers = [
            anonymous.post(
                "/api/file/upload",
                params={"path": str(tmp_path / "a")},
                files={"file": ("f", b"a")},
            ),
            anonymous.get("/api/file/download", params={"path": str(tmp_path)}),
            anonymous.post("/api/file/create_directory", params={"path": str(tmp_path / "d")}),
            anonymous.get(f"/api/file/download-trajectory/{uuid.uuid4()}"),
            anonymous.get("/api/file/archive", params={"path": str(tmp_path)}),
            anonymous.get("/api/file/home"),
            anonymous.get("/api/file/search_subdirs", params={"path": str(tmp_path)}),
            anonymous.post(
                f"{base}/upload",
                params={"path": str(tmp_path / "k" / "a")},
                files={"file": ("f", b"a")},
            ),
            anonymous.get(f"{base}/download", params={"path": str(tmp_path)}),
            anonymous.post(f"{base}/create_directory", params={"path": str(tmp_path / "k" / "d")}),
            anonymous.get(f"{base}/archive", params={"path": str(tmp_path)}),
            anonymous.get(f"{base}/download-trajectory/{uuid.uuid4()}"),
        ]
    assert [a.status_code for a in answers] == [401] * len(answers)
    assert not (tmp_path / "a").exists() and not (tmp_path / "d").exists()
    assert not (tmp_path / "k" / "a").exists() and not (tmp_path / "k" / "d").exists()
