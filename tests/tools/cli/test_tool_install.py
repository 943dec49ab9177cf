"""`uv tool install` from a checkout (the README's command) gives an `openhands-goal` that runs
from any folder, outside the repository and without its virtual environment."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from goal_process import GoalProcess
from openhands.sdk.testing import DemoScript, FakeOpenAIServer
from openhands.sdk.testing.demo_script import DEMO_FILE, DEMO_TEST
from openhands.tools.cli.options import CONVERSATIONS_DIR
from sandbox_support import needs_bwrap

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[3]
INSTALL_TIMEOUT = 300.0


def _uv() -> list[str]:
    """uv as the Makefile finds it: on PATH, else its private venv's, else `python3 -m uv`."""
    found = shutil.which("uv")
    if found is not None:
        return [found]
    bootstrapped = REPO / ".uv-bootstrap" / "bin" / "uv"
    if bootstrapped.exists():
        return [str(bootstrapped)]
    python3 = shutil.which("python3") or sys.executable
    probe = subprocess.run([python3, "-m", "uv", "--version"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.fail("uv is needed for this test: `make uv` installs it")
    return [python3, "-m", "uv"]


def _outside_env(bin_dir: Path) -> dict[str, str]:
    """The environment of a shell that never saw this repository's virtual environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    venv_bin = str(Path(sys.executable).parent)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != venv_bin]
    env["PATH"] = os.pathsep.join([str(bin_dir), *path])
    return env


INSTALL = ["tool", "install", "--reinstall", "./openhands-tools"]
"""The README's command without `--compile-bytecode` (`--with-executables-from openhands-sdk`
is added below): compiling every installed package costs ~15 s of CPU and changes only
whether the first run writes bytecode, which is not what these tests check."""


def test_the_readme_gives_the_command_these_tests_run_plus_compile_bytecode() -> None:
    readme_command = ["uv", *INSTALL[:3], "--compile-bytecode", *INSTALL[3:]]
    readme_command += ["--with-executables-from", "openhands-sdk"]
    assert " ".join(readme_command) in (REPO / "README.md").read_text()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The README's install command, into a tool folder of this module's own; the folder
    holding the installed commands. It resolves from uv's cache when that holds every
    package (no network); only when it does not is the package index asked, as the README's
    command itself would."""
    root = tmp_path_factory.mktemp("uv-tools")
    bin_dir = root / "bin"
    env = {
        **os.environ,
        "UV_TOOL_DIR": str(root / "tools"),
        "UV_TOOL_BIN_DIR": str(bin_dir),
        "UV_PYTHON_DOWNLOADS": "never",
    }
    env.pop("VIRTUAL_ENV", None)
    command = [*_uv(), *INSTALL, "--with-executables-from", "openhands-sdk"]
    done = subprocess.run(
        [*command, "--offline"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )
    if done.returncode != 0 and "network was disabled" in done.stderr:
        done = subprocess.run(
            command,
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    yield bin_dir


@pytest.mark.parametrize(
    "sandbox", ["off", pytest.param("bwrap", marks=needs_bwrap)], ids=["unsandboxed", "sandboxed"]
)
def test_the_installed_command_runs_a_goal_from_a_folder_outside_the_repository(
    installed: Path, tmp_path: Path, sandbox: str
) -> None:
    # Sandboxed, the tool's venv (in a temp folder, as ~/.local/share/uv/tools would be in a
    # home under /tmp) must be shown in the sandbox's private /tmp for the terminal to start.
    folder = tmp_path / "my-project"
    folder.mkdir()
    assert REPO not in folder.parents
    with FakeOpenAIServer() as fake:
        fake.set_responder("*", DemoScript())
        process = GoalProcess(
            fake,
            folder,
            "greet the world",
            "--plain",
            model="openai/fake",
            env={**_outside_env(installed), "OH_SANDBOX": sandbox},
            command=[str(installed / "openhands-goal")],
        )
        process.end_input()
        code, lines, err = process.finish()

    assert code == 0, (lines, err)
    assert (folder / DEMO_FILE).is_file() and (folder / DEMO_TEST).is_file()
    assert (folder / CONVERSATIONS_DIR).is_dir()
    assert lines[-1].startswith("goal complete after 2 rounds")


def test_the_fake_llm_command_comes_with_it(installed: Path) -> None:
    done = subprocess.run(
        [str(installed / "openhands-fake-llm"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 0 and "OpenAI-compatible server" in done.stdout
