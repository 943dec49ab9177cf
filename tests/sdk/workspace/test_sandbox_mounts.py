"""bubblewrap's mount options: the server's own folders are shown wherever they are, and no
path can uncover the host's /proc or /dev.

Pure planning on real folders under tmp_path (no bubblewrap runs here; tests/sdk/workspace/
test_sandbox_check.py and tests/reliability/test_sandbox_anywhere.py run the result).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from openhands.sdk.workspace.sandbox_mounts import mount_options
from openhands.sdk.workspace.sandbox_runtime import runtime, runtime_paths


def _options(own: Path, **given: list[str] | tuple[str, ...]) -> list[str]:
    return mount_options(
        str(own),
        others=list(given.get("others", [])),
        writable=list(given.get("writable", [])),
        readable=list(given.get("readable", [])),
        secret=list(given.get("secret", [])),
        resolv=None,
        runtime=tuple(given.get("runtime", ())),
    )


def _binds(options: list[str]) -> list[tuple[str, str]]:
    """(option, path) of every bind, in order."""
    return [
        (options[i], options[i + 2])
        for i in range(len(options))
        if options[i] in ("--bind", "--ro-bind") and i + 2 < len(options)
    ]


def test_the_server_s_folders_under_the_private_tmp_are_bound_read_only(tmp_path: Path) -> None:
    venv = tmp_path / "checkout" / ".venv"
    venv.mkdir(parents=True)
    work = tmp_path / "work"
    work.mkdir()

    binds = _binds(_options(work, runtime=(str(venv),)))

    assert ("--ro-bind", str(venv)) in binds  # under /tmp, hidden by the private /tmp


def test_folders_already_shown_read_only_are_not_bound_again(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()

    binds = _binds(_options(work, runtime=("/usr/bin", "/usr/lib")))

    assert not [path for _, path in binds if path.startswith("/usr")]


def test_the_server_s_venv_inside_the_workspace_stays_read_only(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    venv = checkout / ".venv"
    venv.mkdir(parents=True)

    binds = _binds(_options(checkout, runtime=(str(venv),)))

    assert binds.index(("--bind", str(checkout))) < binds.index(("--ro-bind", str(venv)))


def test_a_checkout_that_is_the_workspace_stays_writable(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    venv = checkout / ".venv"
    venv.mkdir(parents=True)

    binds = _binds(_options(checkout, runtime=(str(checkout), str(venv))))

    assert ("--bind", str(checkout)) in binds and ("--ro-bind", str(checkout)) not in binds
    assert ("--ro-bind", str(venv)) in binds


def test_the_server_s_folders_inside_another_workspace_are_bound_back(tmp_path: Path) -> None:
    # OH_WORKSPACE_PATH=. in a folder holding the venv: the folder is another workspace.
    projects = Path(tempfile.mkdtemp(prefix="oh-mounts-", dir="/var/tmp"))
    venv = projects / ".venv"
    venv.mkdir(parents=True)
    work = tmp_path / "work"
    work.mkdir()
    try:
        options = _options(work, others=[str(projects)], runtime=(str(venv),))
    finally:
        shutil.rmtree(projects)

    emptied, bound = options.index(str(projects)), options.index(str(venv))
    assert options[emptied - 1] == "--tmpfs" and emptied < bound
    assert ("--ro-bind", str(venv)) in _binds(options)


def test_a_secret_stays_hidden_whole_even_if_the_server_runs_from_inside(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    inside = secret / "venv" / "bin"
    inside.mkdir(parents=True)
    work = tmp_path / "work"
    work.mkdir()

    binds = _binds(_options(work, secret=[str(secret)], runtime=(str(secret), str(inside))))

    assert not [path for _, path in binds if path.startswith(str(secret))]


def test_nothing_is_bound_over_root_or_into_proc_dev_or_sys(tmp_path: Path) -> None:
    options = _options(
        tmp_path,
        readable=["/", "/proc/self", "/dev/shm"],
        writable=["/sys/kernel"],
        runtime=("/", "/dev"),
    )

    assert _binds(options) == [("--ro-bind", "/"), ("--bind", str(tmp_path))]
    assert options[:8] == ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs"]


def test_the_runtime_holds_the_interpreter_its_venv_its_stdlib_and_our_packages() -> None:
    import openhands.sdk

    paths = runtime_paths()

    assert str(Path(sys.executable).resolve().parent) in paths
    if sys.prefix != sys.base_prefix:
        assert str(Path(sys.prefix).resolve()) in runtime().owned
    assert str(Path(openhands.sdk.__file__).resolve().parent.parent) in runtime().owned
    # This checkout (an editable install): its tests and examples read as anywhere else.
    assert str(Path(__file__).resolve().parents[3]) in runtime().shared
    assert all(path != "/" and Path(path).is_dir() for path in paths)
