"""`BrowserSettings`: the params of `Tool(name="browser_tool_set", params={...})`.

The reference SDK's executor arguments keep their names (`headless`, `allowed_domains`,
`session_timeout_minutes`, `init_timeout_seconds`, `action_timeout_seconds`,
`inject_scripts`, `full_output_save_dir`); the rest are this project's limits.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BrowserSettings"]


class BrowserSettings(BaseModel):
    """How a conversation's browser runs, and its limits (0 or None never means unlimited
    here: each limit has a bound)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    headless: bool = Field(
        default=True, description="Run Chromium without a window (a server has no display)."
    )
    executable_path: str | None = Field(
        default=None,
        description="The Chromium to run; None: OH_BROWSER_EXECUTABLE, else /usr/bin/chromium "
        "or chromium / chromium-browser / google-chrome on PATH.",
    )
    allowed_domains: list[str] | None = Field(
        default=None,
        description="If set, browser_navigate (and a click that opens a new tab) only opens "
        "URLs of these hosts and their subdomains. A check on the URLs the agent asks for, "
        "not a network filter: a page may still load what it links to.",
    )
    session_timeout_minutes: float = Field(
        default=30,
        gt=0,
        le=24 * 60,
        description="Close the browser after this many idle minutes (the next action starts "
        "a new one).",
    )
    init_timeout_seconds: float = Field(
        default=30, gt=0, le=600, description="How long Chromium may take to start."
    )
    action_timeout_seconds: float = Field(
        default=30,
        gt=0,
        le=600,
        description="How long one action waits for the page (a load, a script); a page "
        "still loading then is reported, not an error.",
    )
    max_content_chars: int = Field(
        default=30_000,
        ge=1_000,
        le=1_000_000,
        description="At most this much Markdown per browser_get_content call (the rest via "
        "start_from_char).",
    )
    max_elements: int = Field(
        default=500,
        ge=10,
        le=10_000,
        description="At most this many interactive elements listed by browser_get_state.",
    )
    window_width: int = Field(default=1280, ge=320, le=3840, description="Viewport width.")
    window_height: int = Field(default=800, ge=240, le=2160, description="Viewport height.")
    inject_scripts: list[str] | None = Field(
        default=None,
        description="JavaScript run in every page before its own scripts (each tab).",
    )
    full_output_save_dir: str | None = Field(
        default=None,
        description="Folder where screenshots are also saved as files (default: the "
        "conversation's folder, when it persists).",
    )

    def allows(self, url: str) -> bool:
        """Whether `allowed_domains` lets the agent open `url` (always, without a list)."""
        if not self.allowed_domains:
            return True
        parts = urlsplit(url)
        if parts.scheme in ("about", "data"):
            return True
        host = (parts.hostname or "").lower()
        return any(
            host == domain.lower().lstrip(".") or host.endswith("." + domain.lower().lstrip("."))
            for domain in self.allowed_domains
        )
