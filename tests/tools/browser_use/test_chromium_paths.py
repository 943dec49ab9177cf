"""Finding a Chromium outside PATH: Playwright's downloads; the executor's cached lookup."""

from __future__ import annotations

from pathlib import Path

from openhands.tools.browser_use.chromium_paths import playwright_chromium
from openhands.tools.browser_use.impl import BrowserToolExecutor
from openhands.tools.browser_use.launch import find_chromium


def _download(cache: Path, revision: str) -> Path:
    binary = cache / f"chromium-{revision}" / "chrome-linux" / "chrome"
    binary.parent.mkdir(parents=True)
    binary.write_text("")
    return binary


def test_the_newest_playwright_download_is_found(tmp_path: Path) -> None:
    cache = tmp_path / "ms-playwright"
    _download(cache, "1100")
    newest = _download(cache, "1200")
    (cache / "chromium-1300").mkdir()  # an unfinished download: no binary

    assert playwright_chromium(cache) == str(newest)
    assert playwright_chromium(tmp_path / "nothing") is None


def test_the_executor_looks_once_per_process_until_asked_again() -> None:
    BrowserToolExecutor.check_chromium_available.cache_clear()
    first = BrowserToolExecutor.check_chromium_available()

    assert first == find_chromium()
    assert BrowserToolExecutor.check_chromium_available.cache_info().hits == 0
    BrowserToolExecutor.check_chromium_available()
    assert BrowserToolExecutor.check_chromium_available.cache_info().hits == 1
    BrowserToolExecutor.check_chromium_available.cache_clear()
