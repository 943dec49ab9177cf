"""`BrowserSession`: one conversation's Chromium, its tabs, and what the agent does on a page.

Pages are driven through the DevTools protocol only: input as the page would get it from a
person (`Input.dispatchMouseEvent`, `Input.insertText`), reading through small scripts in
`js/` (the numbered interactive elements, the page as Markdown). The elements the last
state listed are kept in the page under a registered symbol, so a click or a typing names
them by number and a page that changed since says so ("stale") instead of hitting another.
Every wait is for a protocol event (a navigation's load), bounded by the action timeout.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from openhands.sdk.errors import OpenHandsError
from openhands.tools.browser_use.cdp import CDPConnection, CDPError, EventWaiter
from openhands.tools.browser_use.launch import BrowserProcess

__all__ = ["BrowserActionError", "BrowserSession", "PageState", "TabInfo"]

_JS = Path(__file__).with_name("js")
TAB_ID_LENGTH = 4
_CLICK = "function (i) { window[Symbol.for('openhands.browser.elements')][i].click(); }"
_DELETE = {"key": "Delete", "code": "Delete", "windowsVirtualKeyCode": 46}


class BrowserActionError(OpenHandsError, ValueError):
    """An action that cannot be done as asked (unknown element, tab...); says what to do."""


@functools.cache
def _script(name: str) -> str:
    return (_JS / f"{name}.js").read_text(encoding="utf-8")


def _function(name: str) -> str:
    # The files start with comment lines; the declaration follows.
    lines = _script(name).splitlines()
    return "\n".join(line for line in lines if not line.startswith("//"))


@dataclass(frozen=True)
class TabInfo:
    """One open tab, as `browser_list_tabs` shows it."""

    tab_id: str
    title: str
    url: str
    current: bool


@dataclass(frozen=True)
class PageState:
    """What `browser_get_state` reads: the page, its numbered elements, where it is scrolled."""

    url: str
    title: str
    elements: list[dict[str, Any]]
    scroll_y: int
    page_height: int
    viewport_height: int


class BrowserSession:
    """The tabs of one Chromium and the actions on its current tab."""

    def __init__(
        self,
        browser: BrowserProcess,
        *,
        action_timeout: float,
        viewport: tuple[int, int] = (1280, 800),
    ) -> None:
        self.browser = browser
        self.action_timeout = action_timeout
        self.viewport = viewport
        self.downloads_dir: str | None = None
        self._sessions: dict[str, str] = {}  # target id -> flat session id
        self._current: str | None = None
        self._init_scripts: list[str] = []
        self.cdp.call("Target.setDiscoverTargets", {"discover": True})  # tabs closing, opening
        pages = self._page_targets()
        if pages:
            self._select(pages[0]["targetId"])
        else:
            self._select(self.cdp.call("Target.createTarget", {"url": "about:blank"})["targetId"])

    @property
    def cdp(self) -> CDPConnection:
        """The DevTools connection of this browser."""
        return self.browser.connection

    @property
    def current_session(self) -> str:
        """The DevTools session of the current tab."""
        assert self._current is not None
        return self._sessions[self._current]

    @property
    def current_target(self) -> str:
        """The target id of the current tab."""
        assert self._current is not None
        return self._current

    def set_download_folder(self, folder: str) -> None:
        """Save downloads in `folder` (in the workspace, where the agent's shell sees them)."""
        self.downloads_dir = folder
        self.cdp.call(
            "Browser.setDownloadBehavior",
            {"behavior": "allow", "downloadPath": folder, "eventsEnabled": True},
        )

    def add_init_script(self, source: str) -> None:
        """Run `source` in every page before the page's own scripts (every tab, from now)."""
        self._init_scripts.append(source)
        for session in self._sessions.values():
            self.cdp.call(
                "Page.addScriptToEvaluateOnNewDocument", {"source": source}, session=session
            )

    # -- tabs --------------------------------------------------------------------------------

    def tabs(self) -> list[TabInfo]:
        """The open tabs, in Chromium's order."""
        return [
            TabInfo(
                tab_id=page["targetId"][-TAB_ID_LENGTH:],
                title=page.get("title", ""),
                url=page.get("url", ""),
                current=page["targetId"] == self._current,
            )
            for page in self._page_targets()
        ]

    def new_tab(self, url: str) -> str:
        """Open `url` in a new tab, make it current and wait for it to load; a note or ''."""
        target = self.cdp.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._select(target)
        return self.navigate(url)

    def switch_tab(self, tab_id: str) -> TabInfo:
        """Make the tab `tab_id` (from `tabs()`) current."""
        target = self._target_of(tab_id)
        self.cdp.call("Target.activateTarget", {"targetId": target})
        self._select(target)
        return next(tab for tab in self.tabs() if tab.current)

    def close_tab(self, tab_id: str) -> None:
        """Close the tab `tab_id`; the current tab becomes another (a blank one if it was the
        last)."""
        target = self._target_of(tab_id)
        gone = self.cdp.expect(
            "Target.targetDestroyed", match=lambda p: p.get("targetId") == target
        )
        self.cdp.call("Target.closeTarget", {"targetId": target})
        if gone.wait(self.action_timeout) is None:
            self.cdp.forget(gone)
        self._sessions.pop(target, None)
        if target == self._current:
            rest = [page["targetId"] for page in self._page_targets() if page["targetId"] != target]
            if rest:
                self._select(rest[0])
            else:
                blank = self.cdp.call("Target.createTarget", {"url": "about:blank"})
                self._select(blank["targetId"])

    # -- navigation --------------------------------------------------------------------------

    def navigate(self, url: str) -> str:
        """Load `url` in the current tab and wait for its load event; a note for the agent
        (why it did not load, a download, still loading), or '' when it loaded."""
        session = self.current_session
        loaded = self.cdp.expect("Page.loadEventFired", session=session)
        download = self.cdp.expect("Browser.downloadWillBegin")
        # Registered now: a small file is saved before an answer to navigate could be read.
        saved = self.cdp.expect(
            "Browser.downloadProgress",
            match=lambda p: p.get("state") in ("completed", "canceled"),
        )
        try:
            result = self.cdp.call(
                "Page.navigate", {"url": url}, session=session, timeout=self.action_timeout
            )
        except CDPError:
            for waiter in (loaded, download, saved):
                self.cdp.forget(waiter)
            raise
        if result.get("isDownload"):
            self.cdp.forget(loaded)
            return self._await_download(download, saved)
        self.cdp.forget(download)
        self.cdp.forget(saved)
        error = result.get("errorText")
        if error:
            self.cdp.forget(loaded)
            return f"The page could not be loaded: {error}."
        if not result.get("loaderId"):  # the same document (a #fragment): nothing to load
            self.cdp.forget(loaded)
            return ""
        return self._await_load(loaded)

    def go_back(self) -> str:
        """Go one entry back in the current tab's history; a note, or '' when it loaded."""
        session = self.current_session
        history = self.cdp.call("Page.getNavigationHistory", session=session)
        index = history["currentIndex"]
        if index <= 0:
            raise BrowserActionError("There is no previous page in this tab's history.")
        loaded = self.cdp.expect("Page.loadEventFired", session=session)
        entry = history["entries"][index - 1]
        self.cdp.call("Page.navigateToHistoryEntry", {"entryId": entry["id"]}, session=session)
        return self._await_load(loaded)

    # -- input -------------------------------------------------------------------------------

    def click(self, index: int, *, new_tab: bool = False) -> str:
        """Click element `index` as a mouse would; wait for a navigation it starts. A note for
        the agent about how it went."""
        target = self._element_call("target", index)
        if target["disabled"]:
            raise BrowserActionError(f"Element {index} is disabled; it cannot be clicked now.")
        if new_tab and target.get("href"):
            self.new_tab(target["href"])
            return f"Opened {target['href']} in a new tab (now the current tab)."
        session = self.current_session
        started = self.cdp.expect(
            "Page.frameStartedLoading",
            session=session,
            match=lambda params: params.get("frameId") == self._current,
        )
        loaded = self.cdp.expect("Page.loadEventFired", session=session)
        note = ""
        if target["reachable"]:
            self._mouse_click(target["x"], target["y"], session)
        else:
            # Another element covers its centre: a mouse would hit that one instead.
            self.call_function(_CLICK, index)
            note = " (it was covered by another element, so it was clicked directly)"
        self._settle(session)
        if started.event is None:
            self.cdp.forget(started)
            self.cdp.forget(loaded)
            return f"Clicked element {index}{note}."
        waited = self._await_load(loaded)
        return f"Clicked element {index}{note}; the page navigated." + (
            f" {waited}" if waited else ""
        )

    def type_text(self, index: int, text: str) -> str:
        """Replace the contents of field `index` with `text`, typed as keyboard input would
        be (a <select> gets the option with that text or value); the field's new value."""
        target = self._element_call("target", index)
        if target["select"]:
            chosen = self.call_function(_function("select"), index, text)
            if chosen.get("error") == "no_option":
                options = ", ".join(repr(o) for o in chosen.get("options", [])[:20])
                raise BrowserActionError(
                    f"Element {index} has no option {text!r}; it has {options}."
                )
            return f"Selected {chosen['value']!r} in element {index}."
        focused = self._element_call("focus", index)
        if focused.get("error") == "not_editable":
            raise BrowserActionError(
                f"Element {index} (<{focused.get('tag')}>) does not take text; type into an "
                "input, a textarea or an editable element from browser_get_state."
            )
        session = self.current_session
        if text:
            self.cdp.call("Input.insertText", {"text": text}, session=session)
        else:
            # Nothing to type: the selected contents are deleted, as a key press would.
            for kind in ("keyDown", "keyUp"):
                self.cdp.call("Input.dispatchKeyEvent", {"type": kind, **_DELETE}, session=session)
        value = self.call_function(_function("value"), index)
        return f"Typed into element {index}; its value is now {value!r}."

    def scroll(self, direction: Literal["up", "down"]) -> str:
        """Scroll the page by most of a screen; where it is now."""
        sign = "-" if direction == "up" else ""
        where = self.evaluate(
            f"window.scrollBy(0, {sign}Math.round(innerHeight * 0.8)), "
            "({y: Math.round(scrollY), height: (document.scrollingElement || "
            "document.documentElement).scrollHeight, viewport: innerHeight})"
        )
        bottom = where["y"] + where["viewport"]
        return f"Scrolled {direction}: showing pixels {where['y']}-{bottom} of {where['height']}."

    # -- reading -----------------------------------------------------------------------------

    def state(self) -> PageState:
        """The page's numbered interactive elements (kept for click and type) and position."""
        data = self.evaluate(_script("elements"))
        return PageState(
            url=data["url"],
            title=data["title"],
            elements=data["items"],
            scroll_y=data["scroll_y"],
            page_height=data["page_height"],
            viewport_height=data["viewport_height"],
        )

    def markdown(self, *, links: bool) -> str:
        """The page's readable content as Markdown."""
        return self.call_function(_function("markdown"), links) or ""

    def screenshot(self) -> str:
        """A PNG of what the current tab shows, base64."""
        return self.cdp.call(
            "Page.captureScreenshot", {"format": "png"}, session=self.current_session
        )["data"]

    def location(self) -> tuple[str, str]:
        """The current tab's URL and title."""
        data = self.evaluate("({url: location.href, title: document.title})")
        return data["url"], data["title"]

    # -- internals ---------------------------------------------------------------------------

    def _page_targets(self) -> list[dict[str, Any]]:
        infos = self.cdp.call("Target.getTargets")["targetInfos"]
        return [info for info in infos if info.get("type") == "page"]

    def _select(self, target: str) -> None:
        if target not in self._sessions:
            session = self.cdp.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
                "sessionId"
            ]
            self.cdp.call("Page.enable", session=session)
            # The viewport exactly (a headless window's size includes room for its chrome).
            width, height = self.viewport
            self.cdp.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                session=session,
            )
            for source in self._init_scripts:
                self.cdp.call(
                    "Page.addScriptToEvaluateOnNewDocument", {"source": source}, session=session
                )
            self._sessions[target] = session
        self._current = target

    def _target_of(self, tab_id: str) -> str:
        wanted = tab_id.strip()
        found = [p["targetId"] for p in self._page_targets() if p["targetId"].endswith(wanted)]
        if len(found) != 1 or not wanted:
            known = ", ".join(tab.tab_id for tab in self.tabs())
            raise BrowserActionError(
                f"No tab {tab_id!r}; the open tabs are {known} (see browser_list_tabs)."
            )
        return found[0]

    def _await_load(self, loaded: Any) -> str:
        if loaded.wait(self.action_timeout) is None:
            self.cdp.forget(loaded)
            if self.cdp.closed:
                raise CDPError("The browser exited while the page was loading.")
            return f"The page was still loading after {self.action_timeout:g} s."
        return ""

    def _await_download(self, began: EventWaiter, saved: EventWaiter) -> str:
        event = began.wait(self.action_timeout)
        if event is None:
            self.cdp.forget(began)
            self.cdp.forget(saved)
            return "The URL is a download; it did not start in time."
        name = (event.get("params") or {}).get("suggestedFilename") or "the file"
        where = os.path.join(self.downloads_dir or "the downloads folder", name)
        ended = saved.wait(self.action_timeout)
        if ended is None:
            self.cdp.forget(saved)
            return f"The URL is a download: {where} is still being saved."
        if ended["params"]["state"] == "canceled":
            return f"The URL is a download, but saving {name} failed."
        return f"The URL is a download: saved as {where}."

    def _settle(self, session: str) -> None:
        # Let the page's handlers run (a click that assigns location starts loading then):
        # two animation frames and a task, answered by the page itself.
        # The document may go away mid-wait: a navigation, which the caller then sees.
        with contextlib.suppress(CDPError):
            self.cdp.call(
                "Runtime.evaluate",
                {
                    "expression": "new Promise((r) => requestAnimationFrame(() => "
                    "requestAnimationFrame(() => setTimeout(r, 0))))",
                    "awaitPromise": True,
                },
                session=session,
                timeout=self.action_timeout,
            )

    def _mouse_click(self, x: float, y: float, session: str) -> None:
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            params: dict[str, Any] = {"type": kind, "x": x, "y": y}
            if kind != "mouseMoved":
                params.update(button="left", clickCount=1)
            self.cdp.call("Input.dispatchMouseEvent", params, session=session)

    def _element_call(self, script: str, index: int) -> dict[str, Any]:
        found = self.call_function(_function(script), index)
        error = found.get("error") if isinstance(found, dict) else "unknown"
        if error == "unknown":
            raise BrowserActionError(
                f"There is no element {index}: call browser_get_state and use an index it lists."
            )
        if error == "stale":
            raise BrowserActionError(
                f"Element {index} is no longer on the page (it changed since the last "
                "browser_get_state): call browser_get_state again."
            )
        return found

    def call_function(self, declaration: str, *args: Any) -> Any:
        """Call a JavaScript function declaration in the current page with JSON `args`."""
        # One round trip: the declaration called with its arguments written as JSON.
        return self.evaluate(f"({declaration})(...{json.dumps(list(args))})")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the current page (promises awaited)."""
        result = self.cdp.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=self.current_session,
            timeout=self.action_timeout,
        )
        return _value(result)


def _value(result: dict[str, Any]) -> Any:
    """The value of an evaluation, or `CDPError` with the page's exception."""
    if "exceptionDetails" in result:
        details = result["exceptionDetails"]
        text = details.get("exception", {}).get("description") or details.get("text")
        raise CDPError(f"The page's script failed: {text}")
    return result["result"].get("value")
