"""Where a Chromium may be installed besides PATH: the standard places of each system, and
the browsers Playwright downloads (`playwright install chromium`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

__all__ = ["installed_chromium", "playwright_chromium"]


def installed_chromium() -> str | None:
    """The first Chromium-family browser found in a standard place or Playwright's cache."""
    for path in _standard_paths():
        if path.exists():
            return str(path)
    return playwright_chromium()


def playwright_chromium(cache: Path | None = None) -> str | None:
    """The newest Chromium Playwright downloaded into `cache` (default: its cache folder for
    this system and user), or None."""
    cache = cache if cache is not None else _playwright_cache()
    if cache is None or not cache.exists():
        return None
    # Newest first: Playwright keeps one folder per revision (chromium-1234).
    for folder in sorted(cache.glob("chromium-*"), key=lambda p: p.name, reverse=True):
        for binary in _playwright_binaries(folder):
            if binary.exists():
                return str(binary)
    return None


def _standard_paths() -> Iterator[Path]:
    if sys.platform == "darwin":
        for app in ("Google Chrome", "Chromium", "Microsoft Edge"):
            yield Path(f"/Applications/{app}.app/Contents/MacOS/{app}")
    elif sys.platform == "win32":
        for variable in ("PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA"):
            base = os.environ.get(variable)
            if base:
                yield Path(base) / "Google/Chrome/Application/chrome.exe"
                yield Path(base) / "Microsoft/Edge/Application/msedge.exe"
    else:
        for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
            yield Path("/usr/bin") / name
        yield Path("/snap/bin/chromium")


def _playwright_cache() -> Path | None:
    if sys.platform == "darwin":
        return Path.home() / "Library/Caches/ms-playwright"
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return Path(local) / "ms-playwright" if local else None
    return Path.home() / ".cache/ms-playwright"


def _playwright_binaries(folder: Path) -> Iterator[Path]:
    if sys.platform == "darwin":
        yield folder / "chrome-mac/Chromium.app/Contents/MacOS/Chromium"
    elif sys.platform == "win32":
        yield folder / "chrome-win64/chrome.exe"
        yield folder / "chrome-win/chrome.exe"
    else:
        yield folder / "chrome-linux/chrome"
        yield folder / "chrome-linux64/chrome"
