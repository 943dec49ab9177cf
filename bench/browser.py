"""Benchmark: the agent's browser (real Chromium) - its start, and each action.

For each sandbox mode (off, and bwrap when it runs here): the browser's start (a fresh
executor's first action, `browser_navigate` to about:blank: Chromium started, DevTools pipe
answered, first tab attached), median of `--starts`; then on a small local page, `--repeat`
times each: `browser_navigate` (load of the page), `browser_click` (a button that changes
the page) and `browser_get_state` (numbered elements, no screenshot), plus a state with a
screenshot. Also what `import openhands.tools.browser_use` costs (a fresh interpreter,
median of 5) and Chromium's memory (PSS of all its processes) after the page is open.
Prints one JSON line. Usage: `uv run python bench/browser.py [--repeat N] [--starts N]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
from openhands.sdk.workspace import claim_workspace, release_workspace, sandbox_status
from openhands.tools.browser_use import actions as a
from openhands.tools.browser_use.impl import BrowserToolExecutor

PAGE = """<!doctype html><title>bench</title>
<button onclick="this.textContent = 'clicked ' + (++window.n || (window.n = 1))">go</button>
<input placeholder="name"><a href="#x">link</a>""" + "".join(
    f"<p>paragraph {n}</p>" for n in range(50)
)


def _ms(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 2)


def _check(observation: Any) -> None:
    assert not observation.is_error, observation.text


def _pss_mb(profile: str) -> float:
    """Chromium's memory: the proportional set size of its processes (shared pages split
    between them, so a library mapped by all counts once)."""
    total = 0
    for process in psutil.process_iter(["cmdline"]):
        cmdline = process.info["cmdline"] or []
        if any(profile in part for part in cmdline):
            try:
                total += process.memory_full_info().pss
            except psutil.Error:
                continue
    return round(total / 2**20, 1)


def _mode(mode: str, repeat: int, starts: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-browser-") as folder:
        workspace = Path(folder)
        (workspace / "index.html").write_text(PAGE)
        url = f"file://{workspace}/index.html"
        claim_workspace(workspace, mode)  # type: ignore[arg-type]
        try:
            start_ms = []
            for _ in range(starts):
                executor = BrowserToolExecutor(working_dir=str(workspace))
                start_ms.append(
                    _ms(lambda e=executor: _check(e(a.BrowserNavigateAction(url="about:blank"))))
                )
                executor.close()
            executor = BrowserToolExecutor(working_dir=str(workspace))
            try:
                _check(executor(a.BrowserNavigateAction(url=url)))
                _check(executor(a.BrowserGetStateAction()))
                navigate = [
                    _ms(lambda: _check(executor(a.BrowserNavigateAction(url=url))))
                    for _ in range(repeat)
                ]
                _check(executor(a.BrowserGetStateAction()))
                click = [
                    _ms(lambda: _check(executor(a.BrowserClickAction(index=0))))
                    for _ in range(repeat)
                ]
                state = [
                    _ms(lambda: _check(executor(a.BrowserGetStateAction()))) for _ in range(repeat)
                ]
                shot = [
                    _ms(lambda: _check(executor(a.BrowserGetStateAction(include_screenshot=True))))
                    for _ in range(repeat)
                ]
                assert executor._session is not None
                pss = _pss_mb(executor._session.browser.profile)
            finally:
                executor.close()
        finally:
            release_workspace(workspace)
    return {
        "start_ms": _median(start_ms),
        "start_runs_ms": [round(v, 1) for v in start_ms],
        "navigate_ms": _median(navigate),
        "click_ms": _median(click),
        "state_ms": _median(state),
        "state_with_screenshot_ms": _median(shot),
        "chromium_pss_mb": pss,
    }


def _import_ms() -> float:
    code = (
        "import time, openhands.tools; t = time.perf_counter(); "
        "import openhands.tools.browser_use; print((time.perf_counter() - t) * 1000)"
    )
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(5)
    ]
    return _median(runs)


def main() -> None:
    """Measure and print one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    modes = ["off"] + (["bwrap"] if sandbox_status("bwrap").active else [])
    result: dict[str, Any] = {
        "bench": "browser",
        "repeat": args.repeat,
        "import_browser_use_ms": _import_ms(),
    }
    for mode in modes:
        result[f"sandbox_{mode}"] = _mode(mode, args.repeat, args.starts)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
