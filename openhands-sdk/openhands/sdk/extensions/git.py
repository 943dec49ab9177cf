"""Git repositories fetched for skills and plugins: cloned once into a cache, then updated.

Each repository URL gets its own cache folder (`<cache>/<name>-<hash of the URL>`); a clone
goes to a temporary folder first, so a failed clone leaves nothing behind, and a lock file
keeps two processes from fetching the same repository at once. Git never prompts (a private
repository without credentials fails at once) and every git command is bounded by
`OH_GIT_TIMEOUT` seconds (default 120).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from openhands.sdk.extensions.errors import ExtensionFetchError
from openhands.sdk.extensions.sources import redact_url

__all__ = [
    "DEFAULT_GIT_CACHE_DIR",
    "GIT_TIMEOUT_ENV",
    "fetch_repository",
    "git_environment",
    "git_timeout",
]

GIT_TIMEOUT_ENV = "OH_GIT_TIMEOUT"
DEFAULT_GIT_TIMEOUT = 120.0
DEFAULT_GIT_CACHE_DIR = Path("~/.openhands/cache/git")
"""Where repositories are cloned unless a caller gives another folder (`~` expanded late)."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def git_timeout() -> float:
    """Seconds one git command may take (`OH_GIT_TIMEOUT`, default 120)."""
    raw = os.environ.get(GIT_TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_GIT_TIMEOUT
    except ValueError:
        return DEFAULT_GIT_TIMEOUT
    return value if value > 0 else DEFAULT_GIT_TIMEOUT


def cache_folder(url: str, cache_dir: Path) -> Path:
    """The cache folder of repository `url`: readable name plus a hash of the whole URL."""
    name = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
    digest = hashlib.sha256(url.encode()).hexdigest()[:12]
    return cache_dir / f"{_UNSAFE.sub('-', name) or 'repo'}-{digest}"


def fetch_repository(
    url: str,
    *,
    cache_dir: Path | None = None,
    ref: str | None = None,
    update: bool = True,
    error: type[ExtensionFetchError] = ExtensionFetchError,
) -> tuple[Path, str]:
    """Clone `url` into the cache (or update the clone), check out `ref`; (folder, commit).

    `ref` is a branch, a tag or a commit; None checks out the remote's default branch.
    With `update=False` an existing clone is used as it is (still checked out at `ref`).
    Raises `error` (an ExtensionFetchError) with git's reason.
    """
    root = (cache_dir or DEFAULT_GIT_CACHE_DIR).expanduser()
    root.mkdir(parents=True, exist_ok=True)
    folder = cache_folder(url, root)
    with _locked(folder.with_name(folder.name + ".lock")):
        from openhands.sdk.extensions.installation import remove_staging_folders

        remove_staging_folders(root, folder.name)  # a clone killed before its rename
        if not (folder / ".git").is_dir():
            _clone(url, folder, error)
        elif update:
            _git(["fetch", "--quiet", "--tags", "--force", "--prune", "origin"], folder, error, url)
        revision = _revision(folder, ref, error, url)
        _git(["checkout", "--quiet", "--force", "--detach", revision], folder, error, url)
        commit = _git(["rev-parse", "HEAD"], folder, error, url).strip()
    return folder, commit


def _clone(url: str, folder: Path, error: type[ExtensionFetchError]) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        _git(
            ["clone", "--quiet", "--no-checkout", "--", url, str(staging)],
            folder.parent,
            error,
            url,
        )
        shutil.rmtree(folder, ignore_errors=True)  # a broken earlier clone, if any
        os.replace(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _revision(folder: Path, ref: str | None, error: type[ExtensionFetchError], url: str) -> str:
    """What to check out: the remote branch `ref`, else the tag or commit `ref`, else the
    remote's default branch."""
    candidates = (
        ["refs/remotes/origin/HEAD"]
        if ref is None
        else [f"refs/remotes/origin/{ref}", f"refs/tags/{ref}", ref]
    )
    for candidate in candidates:
        try:
            return _git(
                ["rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}"], folder, error, url
            ).strip()
        except ExtensionFetchError:
            continue
    if ref is None:
        return "HEAD"
    raise error(f"{redact_url(url)} has no branch, tag or commit {ref!r}")


_KEPT_VARIABLES = (
    "PATH",
    "HOME",
    "LANG",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "SSH_AUTH_SOCK",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "GIT_SSL_CAINFO",
    "GIT_SSH_COMMAND",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
)
"""What git gets of this process's environment to fetch a repository: where programs,
certificates, proxies and the user's ssh agent are; never the server's keys and secrets."""


def git_environment() -> dict[str, str]:
    """The environment every git command of a fetch runs with (see `_KEPT_VARIABLES`)."""
    env = {name: os.environ[name] for name in _KEPT_VARIABLES if name in os.environ}
    env.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def _git(args: list[str], cwd: Path, error: type[ExtensionFetchError], url: str) -> str:
    env = git_environment()
    timeout = git_timeout()
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise error(
            "git is not installed: install git to fetch skills or plugins from a repository"
        ) from None
    except subprocess.TimeoutExpired:
        raise error(
            f"git {args[0]} of {redact_url(url)} took longer than {timeout:g} s "
            f"(raise {GIT_TIMEOUT_ENV} for a large repository or a slow network)"
        ) from None
    if done.returncode != 0:
        reason = redact_url(
            done.stderr.strip().splitlines()[-1]
            if done.stderr.strip()
            else f"exit code {done.returncode}"
        )
        raise error(f"git {args[0]} of {redact_url(url)} failed: {reason}")
    return done.stdout


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
