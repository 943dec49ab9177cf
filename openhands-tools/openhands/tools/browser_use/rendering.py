"""How the browser's findings read for the agent: the page state, the tabs, long content."""

from __future__ import annotations

from openhands.tools.browser_use.session import PageState, TabInfo

__all__ = ["render_element", "render_state", "render_tabs", "truncated"]

_SHOWN = (
    "type",
    "name",
    "placeholder",
    "aria-label",
    "title",
    "role",
    "value",
    "href",
    "alt",
    "checked",
    "disabled",
    "aria-expanded",
    "aria-checked",
    "aria-selected",
)


def render_element(element: dict[str, object]) -> str:
    """`[3]<input type=text placeholder="Name" value="">` or `[4]<button>Save</button>`."""
    attributes = element.get("attributes") or {}
    assert isinstance(attributes, dict)
    shown = " ".join(
        f"{name}={_quote(str(attributes[name]))}" for name in _SHOWN if name in attributes
    )
    tag = str(element.get("tag", "?"))
    opening = f"<{tag}{' ' + shown if shown else ''}>"
    text = str(element.get("text") or "")
    line = (
        f"[{element['index']}]{opening}{text}</{tag}>" if text else f"[{element['index']}]{opening}"
    )
    return line if element.get("in_viewport", True) else line + " (off screen)"


def render_state(state: PageState, tabs: list[TabInfo], max_elements: int) -> str:
    """The page, where it is scrolled, the tabs, and the numbered interactive elements."""
    bottom = state.scroll_y + state.viewport_height
    lines = [
        f"URL: {state.url}",
        f"Title: {state.title or '(none)'}",
        f"Tabs: {len(tabs)} open"
        + "".join(f", current {tab.tab_id}" for tab in tabs if tab.current),
        f"Scroll: showing pixels {state.scroll_y}-{bottom} of {state.page_height}"
        + (" (more below: browser_scroll)" if bottom < state.page_height else ""),
        "",
    ]
    if not state.elements:
        lines.append("No interactive elements on this page.")
        return "\n".join(lines)
    lines.append(
        "Interactive elements (use the number with browser_click or browser_type; numbers "
        "change when the page does):"
    )
    lines.extend(render_element(element) for element in state.elements[:max_elements])
    if len(state.elements) > max_elements:
        lines.append(f"... and {len(state.elements) - max_elements} more (scroll to see them).")
    return "\n".join(lines)


def render_tabs(tabs: list[TabInfo]) -> str:
    """One line per tab: its id, title and URL, the current one marked."""
    lines = [f"{len(tabs)} open tab(s):"]
    for tab in tabs:
        mark = " (current)" if tab.current else ""
        lines.append(f"[{tab.tab_id}] {tab.title or '(no title)'} - {tab.url}{mark}")
    return "\n".join(lines)


def truncated(content: str, start: int, limit: int) -> str:
    """`content` from `start`, at most `limit` characters, saying where to go on if cut."""
    if start > len(content):
        return (
            f"start_from_char ({start}) is past the end: the content has {len(content)} characters."
        )
    part = content[start : start + limit]
    end = start + len(part)
    if end < len(content):
        part += (
            f"\n\n[Content cut at character {end} of {len(content)}: call browser_get_content "
            f"with start_from_char={end} for more.]"
        )
    return part or "(The page has no readable text.)"


def _quote(value: str) -> str:
    return value if value and all(c.isalnum() or c in "-_./:" for c in value) else f'"{value}"'
