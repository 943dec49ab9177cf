"""`make install` on a stock machine: Debian's own python3 (externally managed, PEP 668), no uv.

Before, `make serve`, `make demo` and `make test` stopped at once: `python3 -m pip install uv`
answers `externally-managed-environment` there. Now uv goes into a private venv in the
checkout. Run for real: a copy of the checkout's files, `PATH=/usr/bin:/bin` (Debian's
`/usr/bin/python3`, which must be externally managed, and no uv), the real Makefile.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
DEBIAN_PYTHON = Path("/usr/bin/python3")
STOCK_PATH = "/usr/bin:/bin"
SKIPPED = {".git", ".venv", ".uv-bootstrap", ".pytest_cache", ".ruff_cache", "workspace"}


def _externally_managed() -> bool:
    if not DEBIAN_PYTHON.exists() or shutil.which("uv", path=STOCK_PATH):
        return False
    marker = subprocess.run(
        [str(DEBIAN_PYTHON), "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return (Path(marker.stdout.strip()) / "EXTERNALLY-MANAGED").exists()


needs_stock_python = pytest.mark.skipif(
    not _externally_managed() or shutil.which("make") is None,
    reason="needs make, and Debian's externally managed /usr/bin/python3 with no uv in "
    f"{STOCK_PATH} (apt-get install python3 python3-venv)",
)


def _checkout_copy(target: Path) -> Path:
    """The checkout's files (not its venvs and caches) under `target`."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        top = Path(folder) == ROOT
        return {n for n in names if n == "__pycache__" or (top and n in SKIPPED)}

    shutil.copytree(ROOT, target, ignore=ignore, symlinks=True)
    return target


def _stock_env(home: Path) -> dict[str, str]:
    """A new user's shell: no uv, no venv; this machine's certificates and uv cache kept."""
    env = {"HOME": str(home), "PATH": STOCK_PATH, "LANG": "C.UTF-8"}
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "PIP_CERT", "PIP_INDEX_URL", "UV_INDEX_URL"):
        if name in os.environ:
            env[name] = os.environ[name]
    uv = shutil.which("uv")
    if uv is not None:  # the packages come from this machine's cache, as a second run's would
        cache = subprocess.run([uv, "cache", "dir"], capture_output=True, text=True, timeout=60)
        env["UV_CACHE_DIR"] = cache.stdout.strip()
    return env


@needs_stock_python
def test_make_install_bootstraps_uv_in_a_private_venv_with_an_externally_managed_python(
    tmp_path: Path,
) -> None:
    checkout = _checkout_copy(tmp_path / "checkout")
    env = _stock_env(tmp_path / "home")
    refused = subprocess.run(
        [str(DEBIAN_PYTHON), "-m", "pip", "install", "--dry-run", "uv"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    # COMPILE_BYTECODE= : compiling every installed package (~15 s of CPU) is not what this
    # checks; the default's flag is checked below.
    done = subprocess.run(
        ["make", "--no-print-directory", "install", "COMPILE_BYTECODE="],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )

    # What the old Makefile ran: this Python refuses it.
    assert refused.returncode != 0 and "externally-managed-environment" in refused.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--break-system-packages" not in done.stdout + done.stderr
    assert (checkout / ".uv-bootstrap" / "bin" / "uv").exists()
    server = subprocess.run(
        [str(checkout / ".venv" / "bin" / "python"), "-c", "import openhands.agent_server.app"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert server.returncode == 0, server.stderr
    # Nothing went into the system's Python or the user's site-packages.
    system_uv = subprocess.run(
        [str(DEBIAN_PYTHON), "-m", "uv", "--version"], env=env, capture_output=True, timeout=60
    )
    assert system_uv.returncode != 0
    assert not (tmp_path / "home" / ".local").exists()
    # A second run uses the bootstrapped uv as it is.
    again = subprocess.run(
        ["make", "--no-print-directory", "-n", "install"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert f"{checkout}/.uv-bootstrap/bin/uv sync --frozen --compile-bytecode" in again.stdout


@needs_stock_python
def test_without_python3_venv_make_says_what_to_install(tmp_path: Path) -> None:
    checkout = _checkout_copy(tmp_path / "checkout")
    env = _stock_env(tmp_path / "home")
    # python3 as Debian has it without python3-venv: `-m venv` fails for want of ensurepip.
    shadow = tmp_path / "bin"
    shadow.mkdir()
    python3 = shadow / "python3"
    python3.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = -m ] && [ "$2" = venv ]; then\n'
        '  echo "The virtual environment was not created successfully because ensurepip is '
        'not available." >&2; exit 1\nfi\n'
        f'exec {DEBIAN_PYTHON} "$@"\n'
    )
    python3.chmod(python3.stat().st_mode | stat.S_IXUSR)
    env["PATH"] = f"{shadow}:{STOCK_PATH}"

    done = subprocess.run(
        ["make", "--no-print-directory", "uv"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert done.returncode != 0
    assert "apt-get install python3-venv" in done.stderr
    assert not (checkout / ".uv-bootstrap").exists()
