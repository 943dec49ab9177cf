"""What the browser tests share: the Chromium mark and a small page that changes when used."""

from __future__ import annotations

import pytest
from openhands.tools.browser_use.launch import find_chromium

needs_chromium = pytest.mark.skipif(
    find_chromium() is None,
    reason="no Chromium: `make test` installs Debian's (apt-get install chromium)",
)

PAGE = """<!doctype html>
<html><head><title>Counter page</title>
<style>
  body { margin: 0; font-family: sans-serif; }
  #go { width: 300px; height: 120px; font-size: 24px; background: rgb(200, 0, 0); color: white; }
  #go.done { background: rgb(0, 160, 0); }
</style></head>
<body>
<h1>Hello browser</h1>
<p id="status">Not clicked yet</p>
<button id="go" onclick="this.classList.add('done'); this.textContent = 'Clicked once';
  document.getElementById('status').textContent = 'The button was clicked';">Click me</button>
<input id="name" placeholder="Your name"
  oninput="document.getElementById('echo').textContent = 'Hello, ' + this.value">
<p id="echo"></p>
<a href="second.html">Second page</a>
</body></html>
"""

SECOND = "<!doctype html><title>Second page</title><h2>The second page</h2>"

RED = (200, 0, 0)
GREEN = (0, 160, 0)
"""The button's colour before and after the click (seen in screenshots)."""
