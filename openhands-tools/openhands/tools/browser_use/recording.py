"""Recording a browser session to files a person can replay (`browser_start_recording`).

The format (version 1), in `<workspace>/.agent_tmp/browser_observations/recording-<UTC time>/`:
numbered files `1.json`, `2.json`, ... each a JSON array of events, in order, every event
`{"type": ..., "timestamp": <ms since the epoch>, "data": {...}}`:

- `meta`: the start (`format`: "openhands-browser-recording", `version`, `url`);
- `frame`: what the tab showed, from Chromium's screencast (`image`: a JPEG data URL,
  `width`, `height`), sent by Chromium whenever the page repaints;
- `action`: a browser tool call during the recording (`tool`, `arguments`, `result`);
- `tab`: the recording follows another tab (`url`).

A file is written whenever the events held pass `FLUSH_BYTES` and at the stop; the stop
also writes `replay.html`, a page with the frames and actions inlined that plays them back
in any browser, offline. The reference SDK records rrweb DOM events loaded from a CDN; this
needs no outside script, and shows exactly the pixels the agent's browser rendered.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.io import write_atomic

if TYPE_CHECKING:
    from openhands.tools.browser_use.cdp import CDPConnection

__all__ = ["BROWSER_RECORDING_OUTPUT_DIR", "FLUSH_BYTES", "RECORDING_FORMAT", "Recording"]

BROWSER_RECORDING_OUTPUT_DIR = os.path.join(".agent_tmp", "browser_observations")
"""Where recordings go, relative to the conversation's workspace."""

FLUSH_BYTES = 1_000_000
"""Events held in memory up to about this many bytes, then written to the next file."""

RECORDING_FORMAT = "openhands-browser-recording"

_SCREENCAST = {"format": "jpeg", "quality": 70, "maxWidth": 1280, "maxHeight": 800}
_REPLAY = Path(__file__).with_name("js") / "replay.html"


class Recording:
    """One recording in progress: frames of the followed tab, and the actions noted."""

    def __init__(self, connection: CDPConnection, workspace: str, session: str, url: str) -> None:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
        self.folder = Path(workspace) / BROWSER_RECORDING_OUTPUT_DIR / f"recording-{stamp}"
        self.folder.mkdir(parents=True, exist_ok=True)
        self._cdp = connection
        self._lock = threading.Lock()
        self._held: list[str] = []
        self._held_bytes = 0
        self._files = 0
        self._events = 0
        self._session: str | None = None
        self._stop_listening = connection.listen(self._on_event)
        self._add("meta", {"format": RECORDING_FORMAT, "version": 1, "url": url})
        self.follow(session, url, first=True)

    @property
    def events(self) -> int:
        """Events recorded so far."""
        return self._events

    def follow(self, session: str, url: str, *, first: bool = False) -> None:
        """Record the tab of `session` from now on (the current tab changed)."""
        if session == self._session:
            return
        if self._session is not None:
            self._cdp.send("Page.stopScreencast", session=self._session)
        self._session = session
        if not first:
            self._add("tab", {"url": url})
        self._cdp.call("Page.startScreencast", _SCREENCAST, session=session)
        self._capture(session)

    def _capture(self, session: str) -> None:
        # The screencast sends a frame only when the page repaints: a still page at the
        # start, a tab switch or the stop would have none.
        shot = self._cdp.call(
            "Page.captureScreenshot", {"format": "jpeg", "quality": 70}, session=session
        )
        self._add("frame", {"image": "data:image/jpeg;base64," + shot["data"]})

    def note_action(self, tool: str, arguments: dict[str, Any], result: str) -> None:
        """Record a browser tool call made while recording."""
        self._add("action", {"tool": tool, "arguments": arguments, "result": result[:500]})

    def stop(self) -> str:
        """End the recording: the last events and the replay page are written; a summary."""
        self._stop_listening()
        if self._session is not None:
            self._cdp.send("Page.stopScreencast", session=self._session)
            with contextlib.suppress(OpenHandsError):  # a browser gone keeps what it had
                self._capture(self._session)
        with self._lock:
            self._flush()
            files, events = self._files, self._events
        self._write_replay(files)
        return (
            f"Recording saved to {self.folder}: {events} events in {files} file(s) "
            f"(1.json ... {files}.json). Open {self.folder / 'replay.html'} in a browser to "
            "watch it."
        )

    # -- internals ---------------------------------------------------------------------------

    def _on_event(self, event: dict[str, Any]) -> None:
        if event.get("method") != "Page.screencastFrame":
            return
        params = event.get("params") or {}
        session = event.get("sessionId")
        # Acknowledge at once (from the reader thread: no waiting), or Chromium stops sending.
        self._cdp.send(
            "Page.screencastFrameAck", {"sessionId": params.get("sessionId")}, session=session
        )
        if session != self._session:
            return
        metadata = params.get("metadata") or {}
        self._add(
            "frame",
            {
                "image": "data:image/jpeg;base64," + str(params.get("data", "")),
                "width": metadata.get("deviceWidth"),
                "height": metadata.get("deviceHeight"),
            },
        )

    def _add(self, kind: str, data: dict[str, Any]) -> None:
        line = json.dumps({"type": kind, "timestamp": int(time.time() * 1000), "data": data})
        with self._lock:
            self._held.append(line)
            self._held_bytes += len(line)
            self._events += 1
            if self._held_bytes >= FLUSH_BYTES:
                self._flush()

    def _flush(self) -> None:
        """Write the held events as the next numbered file (the lock is held)."""
        if not self._held:
            return
        self._files += 1
        payload = "[\n" + ",\n".join(self._held) + "\n]\n"
        write_atomic(self.folder / f"{self._files}.json", payload.encode())
        self._held, self._held_bytes = [], 0

    def _write_replay(self, files: int) -> None:
        events: list[Any] = []
        for number in range(1, files + 1):
            events.extend(json.loads((self.folder / f"{number}.json").read_text()))
        # `</` would end the inlined script early.
        inlined = json.dumps(events).replace("</", "<\\/")
        page = _REPLAY.read_text(encoding="utf-8").replace("/*EVENTS*/[]", inlined)
        write_atomic(self.folder / "replay.html", page.encode())
