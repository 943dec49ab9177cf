"""The browser tools (`browser_navigate`, `browser_click`, ...) and `BrowserToolSet`.

`Tool(name=BrowserToolSet.name)` gives an agent all of them, sharing one executor: one
Chromium per conversation, started on the first browser action (building the tools starts
nothing). Names, fields and descriptions follow the reference SDK's, so its scripts run
unchanged. Params: see `BrowserSettings`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self

from openhands.sdk.tool import ToolAnnotations, ToolContext, ToolDefinition, register_tool
from openhands.tools.browser_use.actions import (
    BrowserAction,
    BrowserClickAction,
    BrowserCloseTabAction,
    BrowserGetContentAction,
    BrowserGetStateAction,
    BrowserGetStorageAction,
    BrowserGoBackAction,
    BrowserListTabsAction,
    BrowserNavigateAction,
    BrowserScrollAction,
    BrowserSetStorageAction,
    BrowserStartRecordingAction,
    BrowserStopRecordingAction,
    BrowserSwitchTabAction,
    BrowserTypeAction,
)
from openhands.tools.browser_use.observation import (
    BASE64_IMAGE_PREFIXES,
    BrowserObservation,
    detect_image_mime_type,
)
from openhands.tools.browser_use.recording import BROWSER_RECORDING_OUTPUT_DIR
from openhands.tools.browser_use.settings import BrowserSettings
from openhands.tools.params import parse_params

if TYPE_CHECKING:
    from openhands.tools.browser_use.impl import BrowserToolExecutor

__all__ = [
    "BASE64_IMAGE_PREFIXES",
    "BROWSER_RECORDING_OUTPUT_DIR",
    "BrowserAction",
    "BrowserClickAction",
    "BrowserClickTool",
    "BrowserCloseTabAction",
    "BrowserCloseTabTool",
    "BrowserGetContentAction",
    "BrowserGetContentTool",
    "BrowserGetStateAction",
    "BrowserGetStateTool",
    "BrowserGetStorageAction",
    "BrowserGetStorageTool",
    "BrowserGoBackAction",
    "BrowserGoBackTool",
    "BrowserListTabsAction",
    "BrowserListTabsTool",
    "BrowserNavigateAction",
    "BrowserNavigateTool",
    "BrowserObservation",
    "BrowserScrollAction",
    "BrowserScrollTool",
    "BrowserSetStorageAction",
    "BrowserSetStorageTool",
    "BrowserStartRecordingAction",
    "BrowserStartRecordingTool",
    "BrowserStopRecordingAction",
    "BrowserStopRecordingTool",
    "BrowserSwitchTabAction",
    "BrowserSwitchTabTool",
    "BrowserToolSet",
    "BrowserTypeAction",
    "BrowserTypeTool",
    "detect_image_mime_type",
]

logger = logging.getLogger(__name__)


def _hints(*, read_only: bool, destructive: bool = False, world: bool = True) -> ToolAnnotations:
    return ToolAnnotations(
        readOnlyHint=read_only,
        destructiveHint=destructive,
        idempotentHint=read_only,
        openWorldHint=world,
    )


class _BrowserTool(ToolDefinition[BrowserAction, BrowserObservation]):
    """A browser tool: its description and action; built around a shared executor."""

    hints: ClassVar[ToolAnnotations] = _hints(read_only=False)

    @classmethod
    def create(cls, executor: BrowserToolExecutor) -> Sequence[Self]:  # type: ignore[override]
        """This tool, run by `executor` (the tool set's, shared by all browser tools)."""
        annotations = cls.hints.model_copy(update={"title": cls.name})
        return [cls(executor=executor, annotations=annotations)]


class BrowserNavigateTool(_BrowserTool):
    """Open a URL."""

    description = (
        "Open a URL in the browser (in the current tab, or a new one with new_tab=true).\n"
        "The browser runs next to your terminal: a server you started there is at "
        "http://localhost:<port>. Returns the page's URL and title; then use "
        "browser_get_state to see what you can click or type into."
    )
    action_type = BrowserNavigateAction
    observation_type = BrowserObservation


class BrowserClickTool(_BrowserTool):
    """Click an element."""

    description = (
        "Click an element by its number from browser_get_state (a real mouse click at its "
        "centre). Waits for a page load the click starts. Numbers change when the page "
        "does: call browser_get_state again after a change. new_tab=true opens a link in a "
        "new tab."
    )
    action_type = BrowserClickAction
    observation_type = BrowserObservation


class BrowserTypeTool(_BrowserTool):
    """Type into a field."""

    description = (
        "Type text into an input, textarea or editable element, by its number from "
        "browser_get_state; the text replaces what the field held (for a <select>, give "
        "the option's text). Returns the field's new value."
    )
    action_type = BrowserTypeAction
    observation_type = BrowserObservation


class BrowserGetStateTool(_BrowserTool):
    """Read the page's interactive elements."""

    description = (
        "Get the current page: URL, title, tabs, scroll position and its interactive "
        "elements (links, buttons, fields...), numbered for browser_click and browser_type. "
        "include_screenshot=true adds a screenshot of what the page shows."
    )
    action_type = BrowserGetStateAction
    observation_type = BrowserObservation
    hints = _hints(read_only=True)


class BrowserGetContentTool(_BrowserTool):
    """Read the page as Markdown."""

    description = (
        "Get the page's main content as Markdown (scripts, navigation and hidden parts left "
        "out). Long pages are cut: continue with start_from_char where the note says. "
        "extract_links=true keeps the links' targets."
    )
    action_type = BrowserGetContentAction
    observation_type = BrowserObservation
    hints = _hints(read_only=True)


class BrowserScrollTool(_BrowserTool):
    """Scroll the page."""

    description = "Scroll the page up or down by most of a screen."
    action_type = BrowserScrollAction
    observation_type = BrowserObservation


class BrowserGoBackTool(_BrowserTool):
    """Go back in history."""

    description = "Go back to the previous page of the current tab, like the Back button."
    action_type = BrowserGoBackAction
    observation_type = BrowserObservation


class BrowserListTabsTool(_BrowserTool):
    """List the tabs."""

    description = (
        "List the open tabs: their 4-character ids, titles and URLs (for browser_switch_tab "
        "and browser_close_tab)."
    )
    action_type = BrowserListTabsAction
    observation_type = BrowserObservation
    hints = _hints(read_only=True, world=False)


class BrowserSwitchTabTool(_BrowserTool):
    """Switch to another tab."""

    description = "Make another tab current, by its id from browser_list_tabs."
    action_type = BrowserSwitchTabAction
    observation_type = BrowserObservation
    hints = _hints(read_only=False, world=False)


class BrowserCloseTabTool(_BrowserTool):
    """Close a tab."""

    description = "Close a tab by its id from browser_list_tabs."
    action_type = BrowserCloseTabAction
    observation_type = BrowserObservation
    hints = _hints(read_only=False, destructive=True, world=False)


class BrowserGetStorageTool(_BrowserTool):
    """Read cookies and storage."""

    description = (
        "Get the browser's cookies and the current page's local and session storage, as "
        "JSON (cookies, origins)."
    )
    action_type = BrowserGetStorageAction
    observation_type = BrowserObservation
    hints = _hints(read_only=True, world=False)


class BrowserSetStorageTool(_BrowserTool):
    """Set cookies and storage."""

    description = (
        "Set cookies and storage from JSON as browser_get_storage returns it (cookies, "
        "origins); an origin's storage is set when the current page is of that origin."
    )
    action_type = BrowserSetStorageAction
    observation_type = BrowserObservation
    hints = _hints(read_only=False, destructive=True, world=False)


class BrowserStartRecordingTool(_BrowserTool):
    """Start recording the session."""

    description = (
        "Start recording the browser session: what the page shows and each browser action, "
        f"saved under {BROWSER_RECORDING_OUTPUT_DIR}/recording-<time>/ in the workspace as "
        "numbered JSON files of events, with a replay.html to watch it. Stop with "
        "browser_stop_recording."
    )
    action_type = BrowserStartRecordingAction
    observation_type = BrowserObservation
    hints = _hints(read_only=False, world=False)


class BrowserStopRecordingTool(_BrowserTool):
    """Stop recording the session."""

    description = "Stop the recording and save it; returns where it is, how many events and files."
    action_type = BrowserStopRecordingAction
    observation_type = BrowserObservation
    hints = _hints(read_only=False, world=False)


BROWSER_TOOLS: tuple[type[_BrowserTool], ...] = (
    BrowserNavigateTool,
    BrowserClickTool,
    BrowserGetStateTool,
    BrowserGetContentTool,
    BrowserTypeTool,
    BrowserScrollTool,
    BrowserGoBackTool,
    BrowserListTabsTool,
    BrowserSwitchTabTool,
    BrowserCloseTabTool,
    BrowserGetStorageTool,
    BrowserSetStorageTool,
    BrowserStartRecordingTool,
    BrowserStopRecordingTool,
)
"""Every browser tool, in the order an agent gets them."""


class BrowserToolSet(ToolDefinition[BrowserAction, BrowserObservation]):
    """All browser tools around one executor: one Chromium for the conversation."""

    @classmethod
    def is_usable(cls) -> bool:
        """Whether a Chromium is installed."""
        from openhands.tools.browser_use.launch import find_chromium

        return find_chromium() is not None

    @classmethod
    def create(  # type: ignore[override]
        cls, context: ToolContext | Any = None, *, conv_state: Any = None, **params: Any
    ) -> list[ToolDefinition[BrowserAction, BrowserObservation]]:
        """The browser tools for one conversation (params: `BrowserSettings`). Chromium
        starts on the first action; without one, each action says how to install it."""
        settings = parse_params(BrowserSettings, "browser_tool_set", params)
        ctx = ToolContext.of(conv_state if context is None else context)
        from openhands.tools.browser_use.impl import BrowserToolExecutor

        values = settings.model_dump()
        if values["full_output_save_dir"] is None and ctx.persistence_dir is not None:
            values["full_output_save_dir"] = f"{ctx.persistence_dir}/observations"
        executor = BrowserToolExecutor(working_dir=ctx.working_dir, **values)
        if not cls.is_usable():
            logger.warning(
                "browser tools: no Chromium found; install it (apt-get install chromium) or "
                "set OH_BROWSER_EXECUTABLE"
            )
        tools: list[ToolDefinition[BrowserAction, BrowserObservation]] = []
        for tool_class in BROWSER_TOOLS:
            tools.extend(tool_class.create(executor))
        return tools


register_tool(BrowserToolSet.name, BrowserToolSet)
