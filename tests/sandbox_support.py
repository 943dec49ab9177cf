"""`needs_bwrap`: the mark for tests that need bubblewrap to run, with the probe's reason.

They are skipped only when bubblewrap truly cannot start a sandbox here (not installed, or
user namespaces refused), and the skip says which, and how to get it (`make sandbox`).
"""

from __future__ import annotations

import pytest
from openhands.sdk.workspace import sandbox_status

_STATUS = sandbox_status("bwrap")

needs_bwrap = pytest.mark.skipif(
    not _STATUS.active,
    reason=f"bubblewrap cannot run a sandbox here ({_STATUS.warning}); `make sandbox` installs "
    "it (Debian: apt-get install bubblewrap slirp4netns), and it needs user namespaces",
)
