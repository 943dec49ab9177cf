"""`openhands-fake-llm`: a real process serving the demo script until Ctrl-C."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import entry_points

import httpx
import pytest
from openhands.sdk.testing import fake_llm
from openhands.sdk.testing.demo_script import DEMO_FILE
from ports import free_port
from waits import EVENT_WAIT

START_TIMEOUT = EVENT_WAIT


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "openhands.sdk.testing.fake_llm", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.fixture
def served() -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A running `openhands-fake-llm --delay 0` and the base URL its banner names."""
    port = free_port()
    process = _start("--port", str(port), "--delay", "0")
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert "serving the demo script" in banner, banner
        yield process, f"http://127.0.0.1:{port}/v1"
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def test_the_console_script_runs_main() -> None:
    (script,) = entry_points(group="console_scripts", name="openhands-fake-llm")

    assert script.load() is fake_llm.main


@pytest.mark.slow
def test_it_answers_an_agent_request_with_the_first_demo_step(
    served: tuple[subprocess.Popen[str], str],
) -> None:
    _, base_url = served
    body = {
        "model": "anything",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "file_editor", "parameters": {}}}],
    }

    answer = httpx.post(f"{base_url}/chat/completions", json=body, timeout=10).json()

    call = answer["choices"][0]["message"]["tool_calls"][0]["function"]
    assert call["name"] == "file_editor"
    assert json.loads(call["arguments"])["path"] == DEMO_FILE
    assert answer["usage"]["prompt_tokens"] > 0


@pytest.mark.slow
def test_ctrl_c_stops_it_with_exit_code_0(served: tuple[subprocess.Popen[str], str]) -> None:
    process, _ = served

    process.send_signal(signal.SIGINT)

    assert process.wait(timeout=20) == 0
    assert process.stdout is not None
    assert "stopped" in process.stdout.read()


@pytest.mark.slow
def test_a_port_in_use_exits_2_saying_to_pick_another() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        process = _start("--port", str(taken.getsockname()[1]))
        output, _ = process.communicate(timeout=START_TIMEOUT)

    assert process.returncode == 2
    assert "pick another --port" in output


def test_a_negative_delay_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert fake_llm.main(["--delay", "-1"]) == 2
    assert "--delay must be >= 0" in capsys.readouterr().err
