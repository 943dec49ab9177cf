"""The `docker run` line of docs/agent-server.md gives the options the sandbox's warning names
(no image needed: this runs in the normal suite; tests/image/test_image.py runs the line)."""

from __future__ import annotations

import shlex

from docker_cli import documented_run_options
from openhands.sdk.workspace.sandbox_probe import CONTAINER_OPTIONS


def test_the_documented_docker_run_options_are_those_the_sandbox_asks_for() -> None:
    assert documented_run_options() == shlex.split(CONTAINER_OPTIONS)
