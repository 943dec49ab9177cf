"""Finding a test's child processes from outside, also when they run in a sandbox."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid

import psutil


class Sleeper:
    """A `sleep` command no other test runs, found again by its command line.

    Tests about killing process trees use it instead of `$!`: inside the sandbox a process
    sees its own PID namespace, so a pid it prints means nothing outside.
    """

    def __init__(self) -> None:
        self.seconds = f"{3000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6:06d}"

    @property
    def command(self) -> str:
        """The shell command that starts it (in the foreground; add `&` for a job)."""
        return f"sleep {self.seconds}"

    def running(self) -> list[psutil.Process]:
        """The live processes running this command."""
        found = []
        for process in psutil.process_iter(["cmdline", "status"]):
            if (
                process.info["cmdline"] == ["sleep", self.seconds]
                and process.info["status"] != psutil.STATUS_ZOMBIE
            ):
                found.append(process)
        return found

    def started(self, timeout: float = 30.0) -> bool:
        """True once a process runs it (a job started with `&` may not have exec'd yet)."""
        deadline = time.monotonic() + timeout
        while not self.running():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def gone(self, timeout: float = 10.0) -> bool:
        """True once no process runs it (waits up to `timeout` for the kernel to reap)."""
        deadline = time.monotonic() + timeout
        while self.running():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def kill(self) -> None:
        """SIGKILL whatever still runs it (cleanup)."""
        for process in self.running():
            process.kill()


def uv_command() -> list[str] | None:
    """A command running uv: the `uv` program, or a Python that has the uv module."""
    found = shutil.which("uv")
    if found:
        return [found]
    for python in (shutil.which("python3"), "/usr/bin/python3", sys.executable):
        if (
            python
            and subprocess.run(
                [python, "-m", "uv", "--version"], capture_output=True, timeout=60
            ).returncode
            == 0
        ):
            return [python, "-m", "uv"]
    return None
