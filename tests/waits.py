"""How long a test waits for an event before it fails: one setting for the whole suite.

Tests wait for events (a status, a file, a socket frame, a process exit), never for a fixed
time, so this bound only decides how long a broken test takes to fail. It is generous because
a busy machine is slow: with both cores taken by other work, a fresh server's first LLM call
(it imports litellm) has taken 86 s. `OH_TEST_WAIT_SECONDS` changes it; pytest's own
`--timeout` (300 s per test in `make test`) still ends a test that hangs.
"""

from __future__ import annotations

import os

EVENT_WAIT = float(os.environ.get("OH_TEST_WAIT_SECONDS", "180"))
"""Seconds a test waits for one event (a server start, a run's end, a goal's status)."""

EVENT_WAIT_MS = EVENT_WAIT * 1000
"""The same, in milliseconds (Playwright's unit)."""
