"""The reference SDK's venvs: made once per release and base Python, kept between runs.

The reference's packages share the `openhands` namespace with ours, so each release lives in
a venv of its own. Making one costs ~5 s (uv installs from its cache) and its first imports
another ~4 s (bytecode is written then): paid once per machine, not once per checkout, the
venvs are kept in the user's cache (`$XDG_CACHE_HOME` or `~/.cache`,
`openhands-sdk-tests/reference-venvs/`), as pre-commit keeps its hook environments.
`OH_REFERENCE_VENV_ROOT` chooses another folder. Each venv's folder name carries a digest of
what it holds (requirements, base Python and its version), so checkouts that pin other
releases never rebuild each other's; venvs unused for `KEEP_DAYS` are removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from child_processes import uv_command

INSTALL_TIMEOUT = 1200.0
MIN_VERSION = (3, 12)
KEEP_DAYS = 14.0
"""A kept venv nobody used for this many days is removed (by the next run that makes one)."""
MARKER = ".openhands-interop.json"
"""Written last into a venv: its presence says the venv is complete, its content what it holds."""
ROOT_ENV = "OH_REFERENCE_VENV_ROOT"


def reference_venv_root() -> Path:
    """Where the reference's venvs are kept: `OH_REFERENCE_VENV_ROOT`, else the user's cache
    folder (the system's temp folder when there is no writable one)."""
    if os.environ.get(ROOT_ENV):
        return Path(os.environ[ROOT_ENV])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    root = cache / "openhands-sdk-tests" / "reference-venvs"
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError:
        return Path(tempfile.gettempdir()) / "openhands-sdk-tests-reference-venvs"
    return root


def ensure_reference_python(root: Path, requirements: Sequence[str], label: str) -> Path:
    """The Python of a venv under `root` holding `requirements` (made on first use, then
    reused by every checkout and run that asks for the same). `label` names its folder."""
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root):  # two runs at once make it once
        base = find_reference_python()
        wanted = json.dumps(
            {"requirements": list(requirements), "python": base, "version": _version(base)},
            sort_keys=True,
        )
        digest = hashlib.sha256(wanted.encode()).hexdigest()[:12]
        venv = root / f"reference-{label.replace('*', 'x')}-{digest}"
        python = venv / "bin" / "python"
        marker = venv / MARKER
        if marker.exists() and marker.read_text() == wanted and python.exists():
            marker.touch()  # in use: kept
            return python
        shutil.rmtree(venv, ignore_errors=True)  # an earlier build that did not finish
        _prune(root)
        uv = uv_command()
        env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
        if uv is not None:
            _run([*uv, "venv", "--python", base, str(venv)], env=env)
            _run([*uv, "pip", "install", "--python", str(python), *requirements], env=env)
        else:
            _run([base, "-m", "venv", str(venv)])
            _run([str(python), "-m", "pip", "install", *requirements])
        marker.write_text(wanted)
    return python


def find_reference_python() -> str:
    """A Python >= 3.12 to build the reference's venv with (fails the test if none)."""
    candidates: list[str] = []
    if os.environ.get("OH_REFERENCE_PYTHON"):
        candidates.append(os.environ["OH_REFERENCE_PYTHON"])
    candidates += [p for p in (shutil.which("python3.13"), shutil.which("python3.12")) if p]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += sorted(str(p) for p in pyenv.glob("versions/3.1[2-9]*/bin/python3"))
    for python in candidates:
        version = _version(python)
        if version is not None and version >= MIN_VERSION:
            return python
    pytest.fail(
        "The interop tests need Python >= 3.12 for the reference SDK (set OH_REFERENCE_PYTHON); "
        f"tried: {candidates or 'nothing found'}"
    )


def _version(python: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(sys.version_info[0], sys.version_info[1])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    major, minor = out.stdout.split()
    return int(major), int(minor)


def _prune(root: Path) -> None:
    """Remove kept venvs whose marker nobody touched for KEEP_DAYS (called under the lock)."""
    oldest = time.time() - KEEP_DAYS * 86400
    for venv in root.glob("reference-*"):
        marker = venv / MARKER
        with contextlib.suppress(OSError):
            # A venv without its marker is a build that never finished: its folder's age counts.
            used = (marker if marker.exists() else venv).stat().st_mtime
            if used < oldest:
                shutil.rmtree(venv, ignore_errors=True)


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _run(command: list[str], env: dict[str, str] | None = None) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, env=env)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
