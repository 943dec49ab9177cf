"""/api/skills: gathering skills from their sources, the catalog, installing and managing
installed skills, the public catalog's marketplace."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ..harness import ServerProcess
from .extension_fixtures import extension_server, write_skill

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = extension_server(tmp_path_factory.mktemp("skills-server")).start()
    yield process
    process.stop()


@pytest.fixture
def api(keyed: ServerProcess) -> Iterator[httpx.Client]:
    with keyed.client() as client:
        yield client


def installed_names(api: httpx.Client) -> list[str]:
    answer = api.get("/api/skills/installed")
    assert answer.status_code == 200, answer.text
    return [skill["name"] for skill in answer.json()["skills"]]


def gathered(api: httpx.Client, **body: object) -> dict:
    answer = api.post("/api/skills", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_an_installed_skill_is_listed_toggled_refreshed_and_removed(
    api: httpx.Client, tmp_path: Path
) -> None:
    source = write_skill(tmp_path, "gamma", "Gamma, first.")
    installed = api.post("/api/skills/install", json={"source": str(source)})
    assert installed.status_code == 200, installed.text
    body = installed.json()
    assert (body["name"], body["description"], body["enabled"]) == ("gamma", "Gamma, first.", True)
    assert body["source"] == str(source) and Path(body["install_path"]).name == "gamma"
    assert "gamma" in installed_names(api)
    assert api.get("/api/skills/installed/gamma").json()["name"] == "gamma"
    assert "gamma" in [s["name"] for s in gathered(api, load_public=False)["skills"]]

    disabled = api.patch("/api/skills/installed/gamma", json={"enabled": False})
    assert disabled.json() == {"name": "gamma", "enabled": False}
    assert api.get("/api/skills/installed/gamma").json()["enabled"] is False
    assert "gamma" not in [s["name"] for s in gathered(api, load_public=False)["skills"]]
    api.patch("/api/skills/installed/gamma", json={"enabled": True})

    write_skill(tmp_path, "gamma", "Gamma, second.")
    refreshed = api.post("/api/skills/installed/gamma/refresh")
    assert refreshed.status_code == 200, refreshed.text
    assert refreshed.json()["message"] == "Skill 'gamma' updated"
    assert refreshed.json()["skill"]["description"] == "Gamma, second."

    removed = api.delete("/api/skills/installed/gamma")
    assert removed.json() == {"message": "Skill 'gamma' uninstalled"}
    for answer in (
        api.get("/api/skills/installed/gamma"),
        api.patch("/api/skills/installed/gamma", json={"enabled": True}),
        api.delete("/api/skills/installed/gamma"),
        api.post("/api/skills/installed/gamma/refresh"),
    ):
        assert answer.status_code == 404, answer.text


def test_installing_twice_is_a_conflict_unless_forced(api: httpx.Client, tmp_path: Path) -> None:
    source = write_skill(tmp_path, "delta", "Delta.")
    assert api.post("/api/skills/install", json={"source": str(source)}).status_code == 200
    again = api.post("/api/skills/install", json={"source": str(source)})
    assert again.status_code == 409 and "force" in again.json()["message"]
    forced = api.post("/api/skills/install", json={"source": str(source), "force": True})
    assert forced.status_code == 200
    api.delete("/api/skills/installed/delta")


def test_bad_sources_are_refused_and_nothing_is_installed(
    api: httpx.Client, keyed: ServerProcess, tmp_path: Path
) -> None:
    before = installed_names(api)
    not_a_skill = tmp_path / "plain"
    not_a_skill.mkdir()
    (not_a_skill / "README.md").write_text("no skill here")
    cases = {
        str(not_a_skill): 422,
        str(tmp_path / "missing"): 400,
        "relative/skill": 422,
        "~/skill": 422,
        "": 422,
    }
    if api.get("/server_info").json()["sandbox"]["active"]:
        cases[str(keyed.conversations)] = 403
    for source, status in cases.items():
        answer = api.post("/api/skills/install", json={"source": source})
        assert answer.status_code == status, (source, answer.text)
        if status == 422:
            assert "source" in answer.json()["message"]
    assert installed_names(api) == before


def test_names_are_checked_before_anything_is_read(api: httpx.Client) -> None:
    for name in ("Bad_Name", "a..b", "-x", "x" * 256):
        answer = api.get(f"/api/skills/installed/{name}")
        assert answer.status_code == 422, name
        assert "skill_name" in answer.json()["message"]
    assert api.patch("/api/skills/installed/ok", json={"enabled": "maybe"}).status_code == 422
    assert api.patch("/api/skills/installed/ok", json={}).status_code == 422


def test_sources_merge_with_the_project_winning_a_name(api: httpx.Client, tmp_path: Path) -> None:
    project = tmp_path / "project"
    write_skill(project / ".openhands" / "skills", "alpha", "The project's alpha.")
    urls = [
        {"name": "WORKER_1", "url": "http://localhost:12000", "port": 12000},
        {"name": "VSCODE", "url": "http://localhost:13000", "port": 13000},
    ]
    found = gathered(
        api, project_dir=str(project), sandbox_config={"exposed_urls": urls}, load_user=False
    )
    by_name = {s["name"]: s for s in found["skills"]}
    assert by_name["alpha"]["description"] == "The project's alpha."
    assert "beta" not in by_name  # the default marketplace file lists alpha only
    assert (
        "12000" in by_name["work_hosts"]["content"]
        and "13000" not in by_name["work_hosts"]["content"]
    )
    assert found["sources"]["public"] == 1 and found["sources"]["project"] == 1
    every_public = gathered(api, marketplace_path=None, load_user=False, load_project=False)
    assert {"alpha", "beta"} <= {s["name"] for s in every_public["skills"]}
    assert every_public["skills"][0]["type"] == "agentskills"


def test_a_project_file_the_sandbox_hides_is_left_out(
    api: httpx.Client, keyed: ServerProcess, tmp_path: Path
) -> None:
    if not api.get("/server_info").json()["sandbox"]["active"]:
        pytest.skip("the agent's processes run without a sandbox here (OH_SANDBOX)")
    project = tmp_path / "project"
    project.mkdir()
    key_file = keyed.conversations.parent / ".secret_key"
    assert key_file.exists()
    (project / "AGENTS.md").symlink_to(key_file)
    (project / "CLAUDE.md").write_text("Be kind.")
    found = gathered(api, project_dir=str(project), load_public=False, load_user=False)
    contents = [s["content"] for s in found["skills"]]
    assert any("Be kind." in c for c in contents)
    assert key_file.read_text().strip() not in "".join(contents)
    hidden = api.post("/api/skills", json={"project_dir": str(keyed.conversations)})
    assert hidden.status_code == 403
    relative = api.post("/api/skills", json={"project_dir": "project"})
    assert relative.status_code == 422 and "project_dir" in relative.json()["message"]


def test_the_catalog_says_which_skills_are_public_and_which_the_users(
    api: httpx.Client, tmp_path: Path
) -> None:
    api.post("/api/skills/install", json={"source": str(write_skill(tmp_path, "epsilon", "E."))})
    catalog = api.get("/api/skills/catalog").json()["skills"]
    origins = {s["name"]: s["origin"] for s in catalog}
    assert (origins["alpha"], origins["beta"], origins["epsilon"]) == ("public", "public", "user")
    api.delete("/api/skills/installed/epsilon")


def test_the_marketplace_lists_the_catalog_and_what_is_installed(api: httpx.Client) -> None:
    entries = {e["name"]: e for e in api.get("/api/skills/marketplace").json()["skills"]}
    assert set(entries) == {"city-weather", "alpha"}
    assert entries["alpha"]["installed"] is False
    installed = api.post("/api/skills/install", json={"source": entries["alpha"]["source"]})
    assert installed.status_code == 200, installed.text
    again = {e["name"]: e for e in api.get("/api/skills/marketplace").json()["skills"]}
    assert again["alpha"]["installed"] is True
    api.delete("/api/skills/installed/alpha")


def test_sync_reads_the_catalog_again(api: httpx.Client) -> None:
    answer = api.post("/api/skills/sync")
    assert answer.json() == {
        "status": "success",
        "message": "Skills repository synced successfully",
    }


def test_every_route_needs_the_key(keyed: ServerProcess, tmp_path: Path) -> None:
    source = write_skill(tmp_path, "zeta", "Z.")
    with keyed.client(api_key="") as anonymous:
        answers = [
            anonymous.post("/api/skills", json={}),
            anonymous.get("/api/skills/catalog"),
            anonymous.post("/api/skills/sync"),
            anonymous.post("/api/skills/install", json={"source": str(source)}),
            anonymous.get("/api/skills/installed"),
            anonymous.get("/api/skills/installed/zeta"),
            anonymous.patch("/api/skills/installed/zeta", json={"enabled": False}),
            anonymous.delete("/api/skills/installed/zeta"),
            anonymous.post("/api/skills/installed/zeta/refresh"),
            anonymous.get("/api/skills/marketplace"),
        ]
    assert [a.status_code for a in answers] == [401] * len(answers)
    with keyed.client() as api:
        assert "zeta" not in installed_names(api)


def test_an_organizations_repository_adds_its_skills(
    api: httpx.Client, keyed: ServerProcess, tmp_path: Path
) -> None:
    work = tmp_path / "org-work"
    write_skill(work / "skills", "org-rules", "The organization's rules.")
    git = ["git", "-c", "user.name=T", "-c", "user.email=t@e"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "."], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "s"], check=True)
    bare = tmp_path / "org.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    org = {"repository": "me/x", "provider": "github", "org_name": "acme"}
    found = gathered(
        api,
        load_public=False,
        load_user=False,
        org_configs=[{**org, "org_repo_url": f"file://{bare}"}],
    )
    assert "org-rules" in [s["name"] for s in found["skills"]] and found["sources"]["org"] == 1
    relative = api.post("/api/skills", json={"org_configs": [{**org, "org_repo_url": "x/y"}]})
    assert relative.status_code == 422 and "org_repo_url" in relative.json()["message"]
    if sandboxed_server(api):
        hidden = f"file://{keyed.conversations}/x.git"
        refused = api.post("/api/skills", json={"org_configs": [{**org, "org_repo_url": hidden}]})
        assert refused.status_code == 403


def sandboxed_server(api: httpx.Client) -> bool:
    return api.get("/server_info").json()["sandbox"]["active"]
