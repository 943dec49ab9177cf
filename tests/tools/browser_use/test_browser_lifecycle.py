"""One Chromium per conversation: started on the first action, gone with the conversation,
also when the process that drove it is killed with SIGKILL; started again after it died."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from browser_support import needs_chromium
from openhands.sdk import Agent, LocalConversation, Tool
from openhands.sdk.testing import TestLLM
from openhands.sdk.workspace import LocalWorkspace
from openhands.tools.browser_use import BrowserNavigateAction
from openhands.tools.browser_use.impl import BrowserToolExecutor
from sandbox_support import needs_bwrap
from waits import EVENT_WAIT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240), needs_chromium]

SANDBOX_MODES = [pytest.param("bwrap", marks=needs_bwrap), "off"]


def _browsers(profile: str) -> list[psutil.Process]:
    """The live processes of the Chromium whose profile folder is `profile`."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        cmdline = process.info["cmdline"] or []
        if process.info["status"] != psutil.STATUS_ZOMBIE and any(
            part.startswith("--user-data-dir=") and profile in part for part in cmdline
        ):
            found.append(process)
    return found


def _gone(profile: str) -> bool:
    deadline = time.monotonic() + EVENT_WAIT
    while _browsers(profile):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _executor(conversation: LocalConversation) -> BrowserToolExecutor:
    executor = conversation.tools["browser_navigate"].executor
    assert isinstance(executor, BrowserToolExecutor)
    return executor


def _conversation(workspace: Path, sandbox: str) -> LocalConversation:
    return LocalConversation(
        Agent(llm=TestLLM.from_messages([]), tools=[Tool(name="browser_tool_set")]),
        LocalWorkspace(working_dir=str(workspace), sandbox=sandbox),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("sandbox", SANDBOX_MODES)
def test_the_browser_starts_on_first_use_and_closes_with_the_conversation(
    sandbox: str, workspace: Path
) -> None:
    conversation = _conversation(workspace, sandbox)
    executor = _executor(conversation)
    assert executor._session is None  # building the tools started nothing

    opened = conversation.execute_tool("browser_navigate", BrowserNavigateAction(url="about:blank"))
    assert executor._session is not None
    browser = executor._session.browser
    assert not opened.is_error and _browsers(browser.profile)
    conversation.close()

    assert _gone(browser.profile)
    if browser.profile_dir is not None:  # unsandboxed: a temporary profile on this disk
        assert not Path(browser.profile_dir).exists()
    after = executor(BrowserNavigateAction(url="about:blank"))
    assert after.is_error and "closed with its conversation" in after.text


def test_a_browser_that_died_is_started_again_by_the_next_action(workspace: Path) -> None:
    conversation = _conversation(workspace, "off")
    try:
        conversation.execute_tool("browser_navigate", BrowserNavigateAction(url="about:blank"))
        executor = _executor(conversation)
        assert executor._session is not None
        first = executor._session.browser
        os.killpg(first.process.pid, signal.SIGKILL)
        first.process.wait()

        again = conversation.execute_tool(
            "browser_navigate", BrowserNavigateAction(url="about:blank")
        )

        assert not again.is_error, again.text
        assert executor._session is not None and executor._session.browser is not first
    finally:
        conversation.close()


_DRIVER = textwrap.dedent(
    """
    import sys
    from openhands.sdk import Agent, LocalConversation, Tool
    from openhands.sdk.testing import TestLLM
    from openhands.sdk.workspace import LocalWorkspace
    from openhands.tools.browser_use import BrowserNavigateAction

    conversation = LocalConversation(
        Agent(llm=TestLLM.from_messages([]), tools=[Tool(name="browser_tool_set")]),
        LocalWorkspace(working_dir=sys.argv[1], sandbox=sys.argv[2]),
    )
    opened = conversation.execute_tool("browser_navigate", BrowserNavigateAction(url="about:blank"))
    assert not opened.is_error, opened.text
    print(conversation.tools["browser_navigate"].executor._session.browser.profile, flush=True)
    sys.stdin.read()  # until killed
    """
)


@pytest.mark.parametrize("sandbox", SANDBOX_MODES)
def test_no_chromium_outlives_a_process_killed_with_sigkill(sandbox: str, workspace: Path) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", _DRIVER, str(workspace), sandbox],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as driver:
        try:
            assert driver.stdout is not None
            profile = driver.stdout.readline().strip()
            assert profile and _browsers(profile), "the driver's browser did not start"

            driver.send_signal(signal.SIGKILL)
            driver.wait()

            assert _gone(profile)
        finally:
            driver.kill()
