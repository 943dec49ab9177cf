"""Installing a skill or plugin reads and copies only its source, whatever the source holds.

Real git repositories cloned through `file://` URLs (as a remote would be), built the way an
attacker would: a `repo_path` that is a committed symbolic link to a folder elsewhere on the
machine (it was installed), skill files that are links to `/etc/passwd` or to the server's
settings (they were copied in as links and read through), a link that only leaves through
another one, tree entries named `..`, and archives. Each is refused with a clear error, and
nothing outside the install folder is read into it or written.
"""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest
from agent_server.harness import ServerProcess
from openhands.sdk.extensions.errors import ExtensionError
from openhands.sdk.plugin import install_plugin
from openhands.sdk.skills import install_skill, list_installed_skills


def git(cwd: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, input=stdin, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def repository(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "t@example.com")
    git(path, "config", "user.name", "Test")
    return path


def commit(repo: Path) -> str:
    """Commit everything and return a `file://` URL of the repository (a bare clone of it)."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "content")
    bare = repo.with_name(repo.name + ".git")
    if bare.exists():
        git(bare, "fetch", "-q", str(repo), "+main:main")
    else:
        git(repo.parent, "clone", "-q", "--bare", str(repo), str(bare))
    return f"file://{bare}"


def skill(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name} skill\n---\nBody.\n")
    return folder


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME: git caches and default install folders go there."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def private(tmp_path: Path) -> Path:
    """A folder of the machine that no install may reach (a valid skill, with a secret)."""
    folder = skill(tmp_path / "server-settings", "private")
    (folder / "settings.json").write_text('{"api_key": "sk-must-stay-here"}')
    return folder


def _installed_text(installed: Path) -> str:
    texts = []
    for path in installed.rglob("*"):
        if path.is_file():
            texts.append(path.read_text(errors="replace"))
    return "\n".join(texts)


def test_a_repo_path_through_a_committed_link_is_refused(tmp_path: Path, private: Path) -> None:
    repo = repository(tmp_path / "repo")
    (repo / "mono").symlink_to(private)
    skill(repo / "real", "real")
    url = commit(repo)
    installed = tmp_path / "installed"

    with pytest.raises(ExtensionError, match=r"passes through 'mono', a symbolic link"):
        install_skill(url, repo_path="mono", installed_dir=installed)
    with pytest.raises(ExtensionError, match=r"passes through 'mono', a symbolic link"):
        install_plugin(url, repo_path="mono/", installed_dir=tmp_path / "plugins")

    assert list_installed_skills(installed) == []
    assert install_skill(url, repo_path="real", installed_dir=installed).name == "real"
    assert "sk-must-stay-here" not in _installed_text(installed)


@pytest.mark.parametrize(
    ("link", "target"),
    [
        ("passwd", "/etc/passwd"),
        ("settings.json", "PRIVATE/settings.json"),  # absolute, to the "server's settings"
        ("notes.md", "../../../server-settings/settings.json"),  # relative, climbing out
        ("references", "PRIVATE"),  # a folder
        ("SKILL.md", "PRIVATE/SKILL.md"),  # the skill file itself
    ],
)
def test_a_skill_holding_a_link_out_of_itself_is_refused(
    tmp_path: Path, private: Path, link: str, target: str
) -> None:
    repo = repository(tmp_path / "repo")
    folder = repo / "skills" / "evil"
    if link != "SKILL.md":
        skill(folder, "evil")
    else:
        folder.mkdir(parents=True)
    (folder / link).symlink_to(target.replace("PRIVATE", str(private)))
    url = commit(repo)
    installed = tmp_path / "installed"

    with pytest.raises(ExtensionError) as refused:
        install_skill(url, repo_path="skills/evil", installed_dir=installed)

    assert f"{link!r} is a symbolic link to" in str(refused.value)
    assert "outside its folder" in str(refused.value)
    assert not (installed / "evil").exists()
    assert "sk-must-stay-here" not in _installed_text(installed)


def test_a_link_that_leaves_only_through_another_link_is_refused(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    folder = skill(repo / "skills" / "sly", "sly")
    (repo / "skills" / "other").mkdir()
    (repo / "skills" / "other" / "secret.md").write_text("not the skill's")
    (folder / "here").symlink_to(".")  # points inside: fine on its own
    # Read as text, "sly/here/../other/secret.md" is "sly/other/secret.md", inside; but
    # `here` is the skill folder itself, so `..` leaves it: the file is skills/other/secret.md
    # (once installed: another installed skill's folder).
    (folder / "loot").symlink_to("here/../other/secret.md")
    url = commit(repo)

    with pytest.raises(ExtensionError, match=r"'loot' is a symbolic link"):
        install_skill(url, repo_path="skills/sly", installed_dir=tmp_path / "installed")


def test_links_inside_a_skill_are_kept(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    folder = skill(repo / "skills" / "tidy", "tidy")
    (folder / "references").mkdir()
    (folder / "references" / "guide.md").write_text("the guide")
    (folder / "guide.md").symlink_to("references/guide.md")
    url = commit(repo)
    installed = tmp_path / "installed"

    info = install_skill(url, repo_path="skills/tidy", installed_dir=installed)

    copied = info.install_path / "guide.md"
    assert copied.is_symlink() and copied.read_text() == "the guide"
    assert copied.resolve().is_relative_to(installed.resolve())


def test_a_tree_entry_named_dot_dot_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    blob = git(repo, "hash-object", "-w", "--stdin", stdin="pwned\n")
    inner = git(repo, "mktree", stdin=f"100644 blob {blob}\tescaped.md\n")
    skill_md = git(
        repo,
        "hash-object",
        "-w",
        "--stdin",
        stdin="---\nname: dots\ndescription: d\n---\nBody.\n",
    )
    top = git(repo, "mktree", stdin=f"040000 tree {inner}\t..\n100644 blob {skill_md}\tSKILL.md\n")
    git(repo, "update-ref", "refs/heads/main", git(repo, "commit-tree", top, "-m", "evil"))
    bare = tmp_path / "dots.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))

    with pytest.raises(ExtensionError, match=r"invalid path '\.\./escaped\.md'"):
        install_skill(f"file://{bare}", installed_dir=tmp_path / "installed")
    assert list(tmp_path.rglob("escaped.md")) == []


def test_archives_are_not_sources(tmp_path: Path) -> None:
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as archive:
        payload = tmp_path / "payload.md"
        payload.write_text("---\nname: evil\ndescription: d\n---\n")
        archive.add(payload, arcname="../../escaped/SKILL.md")
        link = tarfile.TarInfo("evil/passwd")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    installed = tmp_path / "installed"

    for source in (str(evil), f"file://{evil}"):
        with pytest.raises(ExtensionError, match="is not a folder"):
            install_skill(source, installed_dir=installed)
    assert list(tmp_path.rglob("escaped")) == []
    assert not installed.exists() or list_installed_skills(installed) == []


def test_plugins_at_create_refuse_a_repo_path_through_a_link(tmp_path: Path, private: Path) -> None:
    repo = repository(tmp_path / "repo")
    (repo / "plugin").symlink_to(private)
    url = commit(repo)
    server = ServerProcess(tmp_path / "conversations", env={"HOME": os.environ["HOME"]}).start()
    try:
        body = {
            "agent": {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "x"}},
            "plugins": [{"source": url, "repo_path": "plugin"}],
        }
        with server.client() as http:
            answer = http.post("/api/conversations", json=body)
    finally:
        server.stop()

    assert answer.status_code == 422, answer.text
    problem = answer.json()
    assert "a symbolic link" in problem["message"]
    assert any(d["loc"][:2] == ["body", "plugins"] for d in problem["detail"])
    assert "sk-must-stay-here" not in json.dumps(problem)
