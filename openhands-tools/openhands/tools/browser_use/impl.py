"""`BrowserToolExecutor`: runs the browser tools of one conversation on one Chromium.

Chromium starts on the first browser action, not when the tools are built (building an
agent, a conversation or the server loads none of this); it runs where `launch.py` says (in
the conversation's sandbox, on its shell's network), is closed after
`session_timeout_minutes` idle and with the conversation, and is started again by the next
action if it died or if the shell it shares a network with was replaced. Actions take turns
(one lock): a page has one mouse.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable
from typing import Any

import openhands.tools.browser_use.actions as a
from openhands.sdk.errors import OpenHandsError
from openhands.sdk.tool import ToolExecutor
from openhands.tools.browser_use.cdp import BrowserClosedError
from openhands.tools.browser_use.launch import (
    BrowserUnavailableError,
    find_chromium,
    start_chromium,
)
from openhands.tools.browser_use.network import (
    NetworkNamespace,
    find_shell,
    network_of,
)
from openhands.tools.browser_use.observation import BrowserObservation
from openhands.tools.browser_use.recording import BROWSER_RECORDING_OUTPUT_DIR, Recording
from openhands.tools.browser_use.rendering import render_state, render_tabs, truncated
from openhands.tools.browser_use.session import BrowserSession
from openhands.tools.browser_use.settings import BrowserSettings
from openhands.tools.browser_use.storage import read_storage, write_storage

__all__ = ["BrowserToolExecutor"]

logger = logging.getLogger(__name__)

DOWNLOADS_DIR = os.path.join(".agent_tmp", "browser_downloads")
"""Where downloads are saved, relative to the workspace (the agent's shell sees them)."""

_SCHEMES = ("http://", "https://", "file://", "about:", "data:")


class BrowserToolExecutor(ToolExecutor[a.BrowserAction, BrowserObservation]):
    """One conversation's browser: started on first use, closed with the conversation."""

    def __init__(
        self,
        headless: bool = True,
        allowed_domains: list[str] | None = None,
        session_timeout_minutes: float = 30,
        init_timeout_seconds: float = 30,
        action_timeout_seconds: float = 30,
        full_output_save_dir: str | None = None,
        inject_scripts: list[str] | None = None,
        *,
        working_dir: str | None = None,
        **settings: Any,
    ) -> None:
        self.settings = BrowserSettings(
            headless=headless,
            allowed_domains=allowed_domains,
            session_timeout_minutes=session_timeout_minutes,
            init_timeout_seconds=init_timeout_seconds,
            action_timeout_seconds=action_timeout_seconds,
            full_output_save_dir=full_output_save_dir,
            inject_scripts=inject_scripts,
            **settings,
        )
        self.working_dir = os.path.abspath(working_dir or os.getcwd())
        self._lock = threading.RLock()
        self._session: BrowserSession | None = None
        self._network: NetworkNamespace | None = None
        self._recording: Recording | None = None
        self._idle: threading.Timer | None = None
        self._closed = False
        self._handlers: dict[type[a.BrowserAction], Callable[[Any], BrowserObservation]] = {
            a.BrowserNavigateAction: self._navigate,
            a.BrowserClickAction: self._click,
            a.BrowserTypeAction: self._type,
            a.BrowserGetStateAction: self._get_state,
            a.BrowserGetContentAction: self._get_content,
            a.BrowserScrollAction: self._scroll,
            a.BrowserGoBackAction: self._go_back,
            a.BrowserListTabsAction: self._list_tabs,
            a.BrowserSwitchTabAction: self._switch_tab,
            a.BrowserCloseTabAction: self._close_tab,
            a.BrowserGetStorageAction: self._get_storage,
            a.BrowserSetStorageAction: self._set_storage,
            a.BrowserStartRecordingAction: self._start_recording,
            a.BrowserStopRecordingAction: self._stop_recording,
        }

    @staticmethod
    @functools.cache
    def check_chromium_available() -> str | None:
        """The Chromium that would be run, or None when none is installed. Looked up once
        per process (`check_chromium_available.cache_clear()` looks again)."""
        return find_chromium()

    def __call__(self, action: a.BrowserAction, conversation: Any = None) -> BrowserObservation:
        """Run one browser action; errors come back as error observations saying what to do."""
        handler = self._handlers.get(type(action))
        if handler is None:
            return self._error(f"{type(action).__name__} is not a browser action.")
        with self._lock:
            if self._closed:
                return self._error("The browser was closed with its conversation.")
            self._cancel_idle()
            try:
                self._ensure_session(conversation)
                observation = handler(action)
            except BrowserClosedError as exc:
                self._drop_session()
                observation = self._error(
                    f"{exc} The browser exited; the next browser action starts a new one "
                    "(open tabs are lost)."
                )
            except OpenHandsError as exc:
                observation = self._error(str(exc))
            if self._recording is not None and not isinstance(
                action, a.BrowserStartRecordingAction | a.BrowserStopRecordingAction
            ):
                self._note(action, observation)
            self._arm_idle()
            return observation

    def close(self) -> None:
        """Close the browser (and its recording) for good; safe to call more than once."""
        with self._lock:
            self._closed = True
            self._cancel_idle()
            self._drop_session()

    # -- the browser's life --------------------------------------------------------------------

    def _ensure_session(self, conversation: Any) -> None:
        shell = find_shell(conversation)
        shell_pid = shell.shell_pid() if shell is not None else None
        if self._session is not None and self._session.browser.alive:
            if shell_pid is None or self._same_network(shell_pid):
                return
            logger.info("browser: the shell's network changed; starting the browser again")
        self._drop_session()
        executable = find_chromium(self.settings.executable_path)
        if executable is None:
            raise BrowserUnavailableError(
                "No Chromium found: install it (apt-get install chromium) or set "
                "OH_BROWSER_EXECUTABLE (or the executable_path param) to a Chromium or Chrome."
            )
        network = network_of(shell_pid) if shell_pid is not None else None
        try:
            browser = start_chromium(
                executable,
                workspace=self.working_dir,
                network=network,
                headless=self.settings.headless,
                window_size=(self.settings.window_width, self.settings.window_height),
                startup_timeout=self.settings.init_timeout_seconds,
            )
        except BaseException:
            if network is not None:
                network.close()
            raise
        self._network = network
        try:
            session = BrowserSession(
                browser,
                action_timeout=self.settings.action_timeout_seconds,
                viewport=(self.settings.window_width, self.settings.window_height),
            )
            downloads = os.path.join(self.working_dir, DOWNLOADS_DIR)
            os.makedirs(downloads, exist_ok=True)
            session.set_download_folder(downloads)
            for script in self.settings.inject_scripts or ():
                session.add_init_script(script)
        except BaseException:
            browser.close()
            raise
        self._session = session

    def _same_network(self, shell_pid: int) -> bool:
        found = network_of(shell_pid)
        if found is None:
            return self._network is None
        found.close()
        return self._network is not None and found.name == self._network.name

    def _drop_session(self) -> None:
        recording, self._recording = self._recording, None
        if recording is not None:
            try:
                recording.stop()
            except OpenHandsError:
                logger.warning("browser: the recording could not be saved", exc_info=True)
        session, self._session = self._session, None
        if session is not None:
            session.browser.close()
        network, self._network = self._network, None
        if network is not None:
            network.close()

    def _arm_idle(self) -> None:
        if self._session is None:
            return
        self._idle = threading.Timer(self.settings.session_timeout_minutes * 60, self._idle_close)
        self._idle.daemon = True
        self._idle.start()

    def _cancel_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def _idle_close(self) -> None:
        if self._lock.acquire(blocking=False):  # busy means not idle
            try:
                logger.info(
                    "browser: closed after %g idle minutes", self.settings.session_timeout_minutes
                )
                self._drop_session()
            finally:
                self._lock.release()

    @property
    def _page(self) -> BrowserSession:
        assert self._session is not None
        return self._session

    # -- actions -------------------------------------------------------------------------------

    def _navigate(self, action: a.BrowserNavigateAction) -> BrowserObservation:
        url = action.url.strip()
        if not url.lower().startswith(_SCHEMES):
            if "://" in url:
                return self._error(f"Cannot open {url!r}: use an http, https or file URL.")
            url = "http://" + url
        if not self.settings.allows(url):
            return self._error(
                f"{url} is outside the allowed domains ({', '.join(self.settings.allowed_domains or [])})."
            )
        note = self._page.new_tab(url) if action.new_tab else self._page.navigate(url)
        return self._after_load("Navigated to", note, url)

    def _click(self, action: a.BrowserClickAction) -> BrowserObservation:
        return self._text(self._page.click(action.index, new_tab=action.new_tab))

    def _type(self, action: a.BrowserTypeAction) -> BrowserObservation:
        return self._text(self._page.type_text(action.index, action.text))

    def _scroll(self, action: a.BrowserScrollAction) -> BrowserObservation:
        return self._text(self._page.scroll(action.direction))

    def _go_back(self, action: a.BrowserGoBackAction) -> BrowserObservation:
        return self._after_load("Went back to", self._page.go_back())

    def _get_state(self, action: a.BrowserGetStateAction) -> BrowserObservation:
        state = self._page.state()
        text = render_state(state, self._page.tabs(), self.settings.max_elements)
        if not action.include_screenshot:
            return self._text(text)
        screenshot = self._page.screenshot()
        observation = BrowserObservation.from_text(
            text, screenshot_data=screenshot, full_output_save_dir=self._save_dir()
        )
        saved = observation.save_screenshot()
        if saved is None:
            return observation
        return BrowserObservation.from_text(
            f"{text}\nScreenshot saved to: {saved}",
            screenshot_data=screenshot,
            full_output_save_dir=self._save_dir(),
        )

    def _get_content(self, action: a.BrowserGetContentAction) -> BrowserObservation:
        markdown = self._page.markdown(links=action.extract_links)
        return self._text(
            truncated(markdown, action.start_from_char, self.settings.max_content_chars)
        )

    def _list_tabs(self, action: a.BrowserListTabsAction) -> BrowserObservation:
        return self._text(render_tabs(self._page.tabs()))

    def _switch_tab(self, action: a.BrowserSwitchTabAction) -> BrowserObservation:
        tab = self._page.switch_tab(action.tab_id)
        return self._text(f"Switched to tab {tab.tab_id}: {tab.title or '(no title)'} ({tab.url})")

    def _close_tab(self, action: a.BrowserCloseTabAction) -> BrowserObservation:
        self._page.close_tab(action.tab_id)
        return self._text(f"Closed tab {action.tab_id}.\n{render_tabs(self._page.tabs())}")

    def _get_storage(self, action: a.BrowserGetStorageAction) -> BrowserObservation:
        import json

        return self._text(json.dumps(read_storage(self._page), indent=2))

    def _set_storage(self, action: a.BrowserSetStorageAction) -> BrowserObservation:
        return self._text(write_storage(self._page, action.storage_state))

    def _start_recording(self, action: a.BrowserStartRecordingAction) -> BrowserObservation:
        if self._recording is not None:
            return self._error(
                f"Already recording to {self._recording.folder}; call browser_stop_recording first."
            )
        url, _ = self._page.location()
        self._recording = Recording(
            self._page.cdp, self.working_dir, self._page.current_session, url
        )
        return self._text(
            f"Recording started: frames and actions go to {self._recording.folder} until "
            "browser_stop_recording."
        )

    def _stop_recording(self, action: a.BrowserStopRecordingAction) -> BrowserObservation:
        recording, self._recording = self._recording, None
        if recording is None:
            return self._error(
                "Not recording: call browser_start_recording first. Recordings are saved "
                f"under {BROWSER_RECORDING_OUTPUT_DIR} in the workspace."
            )
        return self._text(recording.stop())

    # -- helpers -------------------------------------------------------------------------------

    def _after_load(self, verb: str, note: str, requested: str | None = None) -> BrowserObservation:
        if note.startswith("The page could not be loaded"):
            return self._error(f"{note} URL: {requested or self._page.location()[0]}")
        url, title = self._page.location()
        return self._text(f"{verb} {url} (title: {title or '(none)'}). {note}".strip())

    def _note(self, action: a.BrowserAction, observation: BrowserObservation) -> None:
        recording = self._recording
        if recording is None or self._session is None:
            return
        try:
            url, _ = self._page.location()
            recording.follow(self._page.current_session, url)
            recording.note_action(
                _tool_name(action), action.model_dump(mode="json"), observation.text
            )
        except OpenHandsError:
            logger.warning("browser: could not record the action", exc_info=True)

    def _save_dir(self) -> str | None:
        return self.settings.full_output_save_dir

    def _text(self, text: str) -> BrowserObservation:
        return BrowserObservation.from_text(text)

    @staticmethod
    def _error(message: str) -> BrowserObservation:
        return BrowserObservation.from_text(message, is_error=True)


def _tool_name(action: a.BrowserAction) -> str:
    """`browser_click` for a `BrowserClickAction`."""
    name = type(action).__name__.removeprefix("Browser").removesuffix("Action")
    return "browser_" + "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
