"""Containers of the image under test, driven through the `docker` command line.

`documented_run_options()` reads the `docker run` line of docs/agent-server.md's Docker
section, so the tests run the image exactly as the docs tell users to.
"""

from __future__ import annotations

import itertools
import json
import re
import shlex
import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx
from agent_server.harness import wait_until
from waits import EVENT_WAIT

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "agent-server.md"
SERVER_PORT = 8000
DOCKER_TIMEOUT = 300


def docker(*args: str, check: bool = True, timeout: float = DOCKER_TIMEOUT) -> str:
    """Run `docker ARGS`; its stdout (stripped). Raises with its stderr when it fails."""
    done = subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"docker {shlex.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def documented_run_options() -> list[str]:
    """The `--security-opt` and `--device` options of the docs' `docker run` line."""
    section = DOCS.read_text().split("\n## Docker\n", 1)[1].split("\n## ", 1)[0]
    joined = re.sub(r"\\\n", " ", section)
    [line] = [line for line in joined.splitlines() if line.strip().startswith("docker run ")]
    words = shlex.split(line, comments=True)
    options: list[str] = []
    for flag, value in itertools.pairwise(words):
        if flag in ("--security-opt", "--device"):
            options += [flag, value]
    return options


class Container:
    """One container of the image, its published port and its HTTP client."""

    def __init__(self, image: str, *, options: list[str], env: dict[str, str]) -> None:
        self.image = image
        self.name = f"oh-image-test-{uuid.uuid4().hex[:10]}"
        self.key = uuid.uuid4().hex
        self.options = options
        self.env = {"OH_SESSION_API_KEYS": self.key, **env}
        self.base_url = ""

    def run(self) -> Container:
        """`docker run -d` it, and wait until the server answers /health."""
        env = [arg for name, value in self.env.items() for arg in ("-e", f"{name}={value}")]
        published = ["-p", f"127.0.0.1::{SERVER_PORT}"]
        docker("run", "-d", "--name", self.name, *published, *self.options, *env, self.image)
        self._connect()
        return self

    def start(self) -> None:
        """Start it again after a stop (its port may change)."""
        docker("start", self.name)
        self._connect()

    def restart(self) -> None:
        """`docker restart`: a stop (SIGTERM) and a start of the same container."""
        docker("restart", self.name)
        self._connect()

    def _connect(self) -> None:
        address = docker("port", self.name, f"{SERVER_PORT}/tcp").splitlines()[0]
        self.base_url = f"http://{address}"

        def healthy() -> bool:
            if self.state()["Status"] != "running":
                raise AssertionError(f"the container stopped:\n{self.logs()}")
            try:
                return httpx.get(f"{self.base_url}/health", timeout=5).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until(healthy, EVENT_WAIT, what=f"/health of {self.name}")

    def client(self) -> httpx.Client:
        """An HTTP client with the container's session key."""
        return httpx.Client(
            base_url=self.base_url, headers={"X-Session-API-Key": self.key}, timeout=60
        )

    def exec(self, *argv: str, check: bool = True) -> str:
        """`docker exec` as the image's user (outside the agent's sandbox)."""
        return docker("exec", self.name, *argv, check=check)

    def exec_detached(self, *argv: str) -> None:
        """`docker exec -d`: start `argv` in the container and return."""
        docker("exec", "-d", self.name, *argv)

    def succeeds(self, *argv: str) -> bool:
        """Whether `docker exec argv` exits 0."""
        done = subprocess.run(
            ["docker", "exec", self.name, *argv], capture_output=True, timeout=DOCKER_TIMEOUT
        )
        return done.returncode == 0

    def bash(self, command: str, timeout: float = 120) -> dict[str, Any]:
        """`command` through the server's /api/bash (run as the agent's processes are)."""
        with self.client() as http:
            answer = http.post(
                "/api/bash/execute_bash_command",
                json={"command": command, "timeout": timeout},
                timeout=timeout + 30,
            )
        assert answer.status_code == 200, answer.text
        return answer.json()

    def gateway(self) -> str:
        """This machine's address as the container sees it (Docker's bridge)."""
        return self.inspect()["NetworkSettings"]["Gateway"]

    def inspect(self) -> dict[str, Any]:
        return json.loads(docker("inspect", self.name))[0]

    def state(self) -> dict[str, Any]:
        return self.inspect()["State"]

    def logs(self) -> str:
        done = subprocess.run(
            ["docker", "logs", self.name], capture_output=True, text=True, timeout=60
        )
        return done.stdout + done.stderr

    def remove(self) -> None:
        """Remove it and its anonymous volumes (a named volume stays)."""
        docker("rm", "-f", "-v", self.name, check=False)
