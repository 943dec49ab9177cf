"""The Dockerfile's Python installs, run here without Docker: the steps are read from the
Dockerfile itself, so this test follows it rather than a copy of it.

Every stage is replayed in a temp folder that stands for the image's `/`: `ARG` defaults and
`ENV` values are applied (absolute paths moved under that folder, `UV_PYTHON` pointed at this
machine's python3), `WORKDIR` and `COPY` from the build context (honouring .dockerignore) are
done, and every `RUN` that installs Python packages (uv sync / venv / pip, pip install) runs in
bash. Other `RUN`s (apt-get, useradd) need a Debian image and root, and are skipped. Two
settings are changed for speed, neither changes what gets installed: `UV_LINK_MODE=hardlink`
and no bytecode compilation.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from openhands.sdk.workspace.agent_env import agent_environment

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
STEP_TIMEOUT = 600
INSTALLS = re.compile(r"\buv (sync|venv|pip)\b|\bpip install\b")
IMAGE_DIRS = ("/app", "/opt", "/data")
"""Absolute paths of the image that the replay moves under its temp root."""
SPEED = {"UV_LINK_MODE": "hardlink", "UV_COMPILE_BYTECODE": "0"}


@dataclass
class Instruction:
    """One Dockerfile instruction: its keyword and the rest of its (joined) lines."""

    keyword: str
    args: str


@dataclass
class Stage:
    """One `FROM ...` stage and its instructions."""

    name: str
    instructions: list[Instruction] = field(default_factory=list)


def parse(text: str) -> tuple[dict[str, str], list[Stage]]:
    """The global ARG defaults and the stages of a Dockerfile."""
    joined = re.sub(r"\\\n", " ", "\n".join(
        line for line in text.splitlines() if not line.lstrip().startswith("#")
    ))  # fmt: skip
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in joined.splitlines():
        if not line.strip():
            continue
        keyword, _, args = line.strip().partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            alias = re.search(r"\bAS\s+(\S+)", args, re.IGNORECASE)
            stages.append(Stage(alias.group(1) if alias else f"stage{len(stages)}"))
        elif not stages and keyword == "ARG":
            name, _, default = args.partition("=")
            global_args[name.strip()] = default.strip().strip('"')
        elif stages:
            stages[-1].instructions.append(Instruction(keyword, args.strip()))
    return global_args, stages


def _dockerignore() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _ignored(relative: str, patterns: list[str]) -> bool:
    """Docker's rule: a pattern matches the whole path from the context root (`workspace` is
    only the top-level folder); `**/` matches any number of folders."""
    name = relative.rsplit("/", 1)[-1]
    for pattern in patterns:
        if pattern.startswith("**/"):
            if fnmatch.fnmatch(name, pattern[3:]):
                return True
        elif relative.count("/") == pattern.count("/") and fnmatch.fnmatch(relative, pattern):
            return True
    return False


class Replay:
    """Applies a Dockerfile's stages under `root`, the image's `/`."""

    def __init__(self, root: Path, build_args: dict[str, str] | None = None) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.build_args = build_args or {}
        self.env: dict[str, str] = {}
        self.workdir = root
        self.ran: list[str] = []
        self.skipped: list[str] = []

    def image_path(self, value: str) -> str:
        """`value` with the image's absolute paths moved under the root (PATH-like lists too)."""
        parts = []
        for part in value.split(":"):
            if part == "/usr/local/bin/python3":
                part = shutil.which("python3") or sys.executable
            elif part.startswith(IMAGE_DIRS):
                part = f"{self.root}{part}"
            parts.append(part)
        return ":".join(parts)

    def expand(self, value: str) -> str:
        def lookup(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            return self.env.get(name, os.environ.get(name, ""))

        return re.sub(r"\$\{(\w+)\}|\$(\w+)", lookup, value)

    def stage(self, stage: Stage, global_args: dict[str, str]) -> None:
        self.env = {}
        for instruction in stage.instructions:
            getattr(self, f"do_{instruction.keyword.lower()}", self.ignore)(instruction.args)
        del global_args  # only FROM lines use them; the replay has no base image

    def do_arg(self, args: str) -> None:
        name, _, default = args.partition("=")
        self.env[name.strip()] = self.build_args.get(name.strip(), default.strip().strip('"'))

    def do_env(self, args: str) -> None:
        for name, value in re.findall(r"(\w+)=(\"[^\"]*\"|\S+)", args):
            self.env[name] = self.image_path(self.expand(value.strip('"')))
        # The image's CA bundle; a machine without one at that path keeps its own default.
        if not Path(self.env.get("SSL_CERT_FILE", "/")).is_file():
            self.env.pop("SSL_CERT_FILE", None)

    def do_workdir(self, args: str) -> None:
        self.workdir = Path(self.image_path(args))
        self.workdir.mkdir(parents=True, exist_ok=True)

    def do_copy(self, args: str) -> None:
        words = args.split()
        if any(word.startswith("--from=") for word in words):
            return  # from another stage (same root here) or an image (uv: this machine's)
        paths = [word for word in words if not word.startswith("--")]
        *sources, dest = paths
        target = self.workdir / dest if not dest.startswith("/") else Path(self.image_path(dest))
        patterns = _dockerignore()
        for source in sources:
            origin = ROOT / source
            if origin.is_dir():
                shutil.copytree(
                    origin,
                    target,
                    dirs_exist_ok=True,
                    ignore=lambda folder, names: [
                        n for n in names
                        if _ignored(str(Path(folder, n).relative_to(ROOT)), patterns)
                    ],
                )  # fmt: skip
            else:
                destination = target / origin.name if dest.endswith("/") else target
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, destination)

    def do_run(self, args: str) -> None:
        if not INSTALLS.search(args):
            self.skipped.append(args)
            return
        env = {**os.environ, **self.env, **SPEED}
        env.pop("VIRTUAL_ENV", None)  # uv would warn that it does not match the project venv
        done = subprocess.run(
            ["bash", "-c", args],
            cwd=self.workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
        )
        assert done.returncode == 0, f"RUN {args}\n{done.stdout}\n{done.stderr}"
        self.ran.append(args)

    def ignore(self, args: str) -> None:
        """USER, EXPOSE, VOLUME, HEALTHCHECK, CMD: nothing to do without Docker."""


def replay(root: Path, build_args: dict[str, str] | None = None) -> Replay:
    """Every stage of the Dockerfile, in order, under `root`."""
    global_args, stages = parse(DOCKERFILE.read_text())
    machine = Replay(root, build_args)
    for stage in stages:
        machine.stage(stage, global_args)
    return machine


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Replay:
    """The Dockerfile replayed once with its default build arguments."""
    if shutil.which("uv") is None:
        pytest.skip("uv is not installed")
    return replay(tmp_path_factory.mktemp("image"))


def _in_image(image: Replay, command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`command` in bash as the agent's processes run in the image: the runtime stage's
    environment as `agent_environment` hands it on (OH_AGENT_PATH as PATH)."""
    env = agent_environment({**os.environ, **image.env}, passthrough=())
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_replay_runs_the_python_installs_and_skips_only_system_steps(image: Replay) -> None:
    assert any("uv sync --frozen --no-dev --no-editable" in step for step in image.ran)
    assert any("uv venv" in step for step in image.ran)
    assert all(not INSTALLS.search(step) for step in image.skipped)
    assert any("apt-get install" in step for step in image.skipped)


def test_the_image_installs_the_agent_s_sandbox(image: Replay) -> None:
    [install] = [step for step in image.skipped if "apt-get install" in step]
    assert {"bubblewrap", "slirp4netns"} <= set(install.split())
    # The agent's own venv stays writable in the sandbox (the replay roots /opt/project).
    assert image.env["OH_SANDBOX_WRITABLE"] == str(image.root / "opt" / "project")


def test_the_server_venv_runs_the_agent_server(image: Replay) -> None:
    server = image.root / "app" / ".venv" / "bin" / "openhands-agent-server"

    done = subprocess.run([str(server), "--help"], capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr
    assert "--port" in done.stdout


def test_verify_with_python_m_pytest_passes_in_the_image(image: Replay, tmp_path: Path) -> None:
    (tmp_path / "test_ok.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n")

    done = _in_image(image, "python -m pytest -q -p no:cacheprovider", tmp_path)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_the_agents_python_is_not_the_servers(image: Replay, tmp_path: Path) -> None:
    done = _in_image(image, "python -c 'import sys; print(sys.prefix)'; pip --version", tmp_path)

    prefix, pip = done.stdout.splitlines()[:2]
    assert prefix == str(image.root / "opt" / "project")
    assert str(image.root / "opt" / "project") in pip
    assert _in_image(image, "python -c 'import openhands.sdk'", tmp_path).returncode != 0


def test_the_project_tools_build_arg_chooses_what_the_agents_python_has(tmp_path: Path) -> None:
    if shutil.which("uv") is None:
        pytest.skip("uv is not installed")
    global_args, stages = parse(DOCKERFILE.read_text())
    build = next(stage for stage in stages if stage.name == "build")
    machine = Replay(tmp_path / "image", {"PROJECT_TOOLS": "iniconfig"})
    project_steps = Stage(
        "project",
        [i for i in build.instructions if i.keyword == "ENV" or "PROJECT_" in i.args],
    )
    machine.stage(project_steps, global_args)
    python = tmp_path / "image" / "opt" / "project" / "bin" / "python"

    def imports(module: str) -> bool:
        return subprocess.run([str(python), "-c", f"import {module}"], timeout=60).returncode == 0

    assert imports("iniconfig")
    assert not imports("pytest")


def _runtime() -> Stage:
    return parse(DOCKERFILE.read_text())[1][-1]


def test_the_server_never_runs_what_the_agent_can_write(image: Replay) -> None:
    writable = image.env["OH_SANDBOX_WRITABLE"].split(",")
    server_path = image.env["PATH"].split(":")
    agent_path = image.env["OH_AGENT_PATH"].split(":")

    assert not [d for d in server_path if any(d.startswith(w) for w in writable)]
    assert agent_path[0] == str(image.root / "opt" / "project" / "bin")
    # The healthcheck and the command name the server's programs, never a PATH lookup.
    for instruction in _runtime().instructions:
        if instruction.keyword in ("HEALTHCHECK", "CMD", "ENTRYPOINT"):
            program = re.search(r'\[\s*"([^"]+)"', instruction.args)
            assert program is not None and program.group(1).startswith("/"), instruction
            assert not program.group(1).startswith("/opt/project"), instruction


def test_the_conversations_folder_is_made_private_in_the_image() -> None:
    [users] = [i.args for i in _runtime().instructions if "useradd" in i.args]

    assert "install -d -m 0700 -o openhands -g openhands /data/conversations" in users
