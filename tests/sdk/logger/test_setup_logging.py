"""`setup_logging`: the root logger configured from arguments or the environment."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.logger import get_logger, setup_logging


@pytest.fixture(autouse=True)
def restore_root_logger(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Undo what setup_logging does to the root logger, and clear the LOG_* variables."""
    for name in ("LOG_LEVEL", "LOG_JSON", "LOG_TO_FILE", "LOG_DIR", "DEBUG"):
        monkeypatch.delenv(name, raising=False)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def _flush() -> None:
    for handler in logging.getLogger().handlers:
        handler.flush()


def test_logging_to_a_file_creates_the_folder_and_writes_records(tmp_path: Path) -> None:
    folder = tmp_path / "logs" / "run-1"

    setup_logging(log_to_file=True, log_dir=str(folder))
    get_logger("demo").info("written to the file")
    _flush()

    assert "written to the file" in (folder / "app.log").read_text()


def test_json_lines_when_log_json_is_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOG_JSON", "true")

    setup_logging(log_to_file=True, log_dir=str(tmp_path))
    get_logger("demo").warning("as json")
    _flush()

    record = json.loads((tmp_path / "app.log").read_text().splitlines()[-1])
    assert (record["message"], record["levelname"], record["name"]) == (
        "as json",
        "WARNING",
        "demo",
    )


def test_the_level_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOG_LEVEL", "WARNING")

    setup_logging(log_to_file=True, log_dir=str(tmp_path))
    get_logger("demo").info("too quiet")
    get_logger("demo").error("loud enough")
    _flush()

    text = (tmp_path / "app.log").read_text()
    assert "loud enough" in text and "too quiet" not in text


def test_calling_it_again_adds_no_duplicate_handlers(tmp_path: Path) -> None:
    setup_logging(log_to_file=True, log_dir=str(tmp_path))
    count = len(logging.getLogger().handlers)

    setup_logging(log_to_file=True, log_dir=str(tmp_path))

    assert len(logging.getLogger().handlers) == count


def test_importing_the_sdk_configures_no_logging() -> None:
    script = (
        "import logging, openhands.sdk\n"
        "print(len(logging.getLogger().handlers), logging.getLogger().level)\n"
    )

    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )

    assert result.stdout.split() == ["0", str(logging.WARNING)]
