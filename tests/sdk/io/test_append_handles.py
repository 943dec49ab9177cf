"""AppendHandles: a bounded LRU of append descriptors that never closes one in use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from openhands.sdk.io import MAX_OPEN_FILES_ENV, AppendHandles
from openhands.sdk.io.handles import DEFAULT_MAX_OPEN_FILES


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _append(handles: AppendHandles, path: Path, data: bytes) -> None:
    with handles.use(path) as fd:
        os.write(fd, data)


def test_appends_go_to_the_end_of_each_file(tmp_path: Path) -> None:
    handles = AppendHandles(max_open=2)
    for name in "abc":
        (tmp_path / name).write_bytes(b"start\n")

    for round_ in range(3):
        for name in "abc":
            _append(handles, tmp_path / name, f"{name}{round_}\n".encode())

    assert (tmp_path / "b").read_text() == "start\nb0\nb1\nb2\n"


def test_no_more_than_max_open_descriptors_stay_open(tmp_path: Path) -> None:
    handles = AppendHandles(max_open=3)
    before = _open_fds()

    for index in range(20):
        _append(handles, tmp_path / f"log{index}", b"x")

    assert len(handles) == 3
    assert _open_fds() - before == 3


def test_the_least_recently_used_descriptor_is_closed_first(tmp_path: Path) -> None:
    handles = AppendHandles(max_open=2)
    first, second, third = (tmp_path / name for name in ("first", "second", "third"))
    _append(handles, first, b"1")
    _append(handles, second, b"2")
    with handles.use(first) as fd_first:
        pass
    _append(handles, third, b"3")  # `second` is now the least recently used

    with handles.use(first) as fd_again:
        assert fd_again == fd_first  # still open: it was used more recently than `second`


def test_a_descriptor_in_use_is_not_closed_by_others(tmp_path: Path) -> None:
    handles = AppendHandles(max_open=1)
    with handles.use(tmp_path / "busy") as fd:
        for index in range(5):
            _append(handles, tmp_path / f"other{index}", b"x")
        os.write(fd, b"still open")

    assert (tmp_path / "busy").read_bytes() == b"still open"


def test_discard_closes_after_the_current_use(tmp_path: Path) -> None:
    handles = AppendHandles(max_open=0)
    path = tmp_path / "log"
    with handles.use(path) as fd:
        handles.discard(path)
        os.write(fd, b"ok")  # not closed under its user
    before = _open_fds()
    with handles.use(path):
        assert _open_fds() == before + 1  # a fresh descriptor: the old one was closed

    assert path.read_bytes() == b"ok"


def test_zero_means_unlimited(tmp_path: Path) -> None:
    handles = AppendHandles(max_open=0)
    for index in range(10):
        _append(handles, tmp_path / f"log{index}", b"x")

    assert len(handles) == 10


def test_lowering_the_limit_closes_idle_descriptors(tmp_path: Path) -> None:
    handles = AppendHandles(max_open=0)
    for index in range(6):
        _append(handles, tmp_path / f"log{index}", b"x")

    handles.max_open = 2

    assert len(handles) == 2


def test_a_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="0 = unlimited"):
        AppendHandles(max_open=-1)


def test_the_environment_sets_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_OPEN_FILES_ENV, "7")

    assert AppendHandles().max_open == 7


def test_a_bad_environment_value_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_OPEN_FILES_ENV, "many")

    with pytest.raises(ValueError, match=MAX_OPEN_FILES_ENV):
        AppendHandles()


def test_the_default_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MAX_OPEN_FILES_ENV, raising=False)

    assert 1 <= AppendHandles().max_open <= DEFAULT_MAX_OPEN_FILES
