"""The browser tools' arguments: one `Action` per tool, with the reference SDK's field names."""

from __future__ import annotations

from typing import Any, Literal

from openhands.sdk.tool import Action
from pydantic import Field

__all__ = [
    "BrowserAction",
    "BrowserClickAction",
    "BrowserCloseTabAction",
    "BrowserGetContentAction",
    "BrowserGetStateAction",
    "BrowserGetStorageAction",
    "BrowserGoBackAction",
    "BrowserListTabsAction",
    "BrowserNavigateAction",
    "BrowserScrollAction",
    "BrowserSetStorageAction",
    "BrowserStartRecordingAction",
    "BrowserStopRecordingAction",
    "BrowserSwitchTabAction",
    "BrowserTypeAction",
]


class BrowserAction(Action):
    """Any browser tool's arguments (the tool set's common action type)."""


class BrowserNavigateAction(BrowserAction):
    """Arguments of `browser_navigate`."""

    url: str = Field(description="The URL to open (http, https, file or about:blank).")
    new_tab: bool = Field(default=False, description="Open it in a new tab. Default: False.")


class BrowserClickAction(BrowserAction):
    """Arguments of `browser_click`."""

    index: int = Field(ge=0, description="The element's number from browser_get_state.")
    new_tab: bool = Field(
        default=False, description="Open the link it leads to in a new tab. Default: False."
    )


class BrowserTypeAction(BrowserAction):
    """Arguments of `browser_type`."""

    index: int = Field(ge=0, description="The input element's number from browser_get_state.")
    text: str = Field(description="The text to type (it replaces what the field holds).")


class BrowserGetStateAction(BrowserAction):
    """Arguments of `browser_get_state`."""

    include_screenshot: bool = Field(
        default=False, description="Also return a screenshot of the page. Default: False."
    )


class BrowserGetContentAction(BrowserAction):
    """Arguments of `browser_get_content`."""

    extract_links: bool = Field(
        default=False, description="Keep the links' targets in the Markdown. Default: False."
    )
    start_from_char: int = Field(
        default=0, ge=0, description="Where to start in the content (to read past a cut)."
    )


class BrowserScrollAction(BrowserAction):
    """Arguments of `browser_scroll`."""

    direction: Literal["up", "down"] = Field(
        default="down", description="'up' or 'down'. Default: 'down'."
    )


class BrowserGoBackAction(BrowserAction):
    """Arguments of `browser_go_back` (none)."""


class BrowserListTabsAction(BrowserAction):
    """Arguments of `browser_list_tabs` (none)."""


class BrowserSwitchTabAction(BrowserAction):
    """Arguments of `browser_switch_tab`."""

    tab_id: str = Field(description="The 4-character tab id from browser_list_tabs.")


class BrowserCloseTabAction(BrowserAction):
    """Arguments of `browser_close_tab`."""

    tab_id: str = Field(description="The 4-character tab id from browser_list_tabs.")


class BrowserGetStorageAction(BrowserAction):
    """Arguments of `browser_get_storage` (none)."""


class BrowserSetStorageAction(BrowserAction):
    """Arguments of `browser_set_storage`."""

    storage_state: dict[str, Any] = Field(
        description="'cookies' (a list of cookie objects) and 'origins' (each with 'origin', "
        "'localStorage' and 'sessionStorage' lists of {name, value}), as browser_get_storage "
        "returns them."
    )


class BrowserStartRecordingAction(BrowserAction):
    """Arguments of `browser_start_recording` (none)."""


class BrowserStopRecordingAction(BrowserAction):
    """Arguments of `browser_stop_recording` (none)."""
