"""Where the reference's venvs are kept (`reference_venv.py`): outside the checkout, one folder
per content, old ones removed."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from interop_env import REFERENCE_PIN, requirements
from reference_venv import KEEP_DAYS, MARKER, _prune, reference_venv_root

CHECKOUT = Path(__file__).resolve().parents[2]


def test_the_venv_the_interop_tests_use_is_kept_outside_the_checkout(
    reference_python: Path,
) -> None:
    """A fresh clone reuses it: it is not in `.pytest_cache` or anywhere else in the clone."""
    venv = reference_python.parent.parent
    assert CHECKOUT not in venv.resolve().parents
    assert venv.parent == reference_venv_root()
    held = json.loads((venv / MARKER).read_text())
    assert held["requirements"] == list(requirements(REFERENCE_PIN))
    assert venv.name.startswith(f"reference-{REFERENCE_PIN}-")


def test_the_root_follows_the_setting_then_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OH_REFERENCE_VENV_ROOT", str(tmp_path / "chosen"))
    assert reference_venv_root() == tmp_path / "chosen"
    monkeypatch.delenv("OH_REFERENCE_VENV_ROOT")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = reference_venv_root()
    assert root == tmp_path / "cache" / "openhands-sdk-tests" / "reference-venvs"
    assert root.is_dir()


def test_venvs_unused_for_the_kept_days_are_removed_and_the_others_stay(tmp_path: Path) -> None:
    old = time.time() - (KEEP_DAYS + 1) * 86400

    def venv(name: str, *, marker: bool, used: float) -> Path:
        folder = tmp_path / name
        (folder / "bin").mkdir(parents=True)
        touched = folder / MARKER if marker else folder
        if marker:
            touched.write_text("{}")
        os.utime(touched, (used, used))
        return folder

    stale = venv("reference-1.0-aaaa", marker=True, used=old)
    unfinished = venv("reference-1.0-bbbb", marker=False, used=old)
    recent = venv("reference-1.0-cccc", marker=True, used=time.time())
    building = venv("reference-1.0-dddd", marker=False, used=time.time())
    other = tmp_path / "not-a-venv"
    other.mkdir()
    os.utime(other, (old, old))

    _prune(tmp_path)

    assert not stale.exists() and not unfinished.exists()
    assert recent.exists() and building.exists() and other.exists()
