"""`relocated_python(folder)`: this project's Python as if installed in `folder`.

A venv made there (no pip, so it takes a second) whose site-packages adds this checkout's own
site-packages: its `sys.executable` and `sys.prefix` are in `folder`, so a server or terminal
started with it meets what an install there meets (a checkout cloned into /tmp, a tool venv
in a home folder, a venv under /dev/shm), without copying the project.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

_TIMEOUT = 120.0
"""Seconds for `python -m venv` (a busy machine)."""


def relocated_python(folder: Path) -> Path:
    """A venv at `folder/venv` that imports this project; its `bin/python`."""
    venv = folder / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)],
        check=True,
        capture_output=True,
        timeout=_TIMEOUT,
    )
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
        timeout=_TIMEOUT,
    ).stdout.strip()
    # An `import` line of a .pth file runs at start: the project's site-packages (and the
    # editable installs its own .pth files name) join this venv's.
    ours = sysconfig.get_path("purelib")
    Path(purelib, "openhands_project.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    return python
