"""Starting Chromium for a conversation: which program, where it runs, and its private profile.

Where: in the conversation's sandbox (`sandbox_plan` of its workspace: the same files the
terminal sees, a private `/tmp` that holds the profile and vanishes with the sandbox). Its
network is the terminal's when the conversation has a running shell: Chromium joins the
shell's network namespace (`nsenter`), so `localhost` in the browser is the sandbox's
localhost, where the agent's own servers listen, and the host's loopback stays out of reach
as it is for the shell. Without a shell it gets a network namespace of its own, as any
sandboxed command (`sandbox_command`). With the sandbox off it runs as the agent's other
processes do: the agent's environment, its own session, a temporary profile.

The DevTools pipe is handed down as two descriptors that a `bash` line inside renumbers to
3 and 4, where Chromium expects them. The process group is registered with the SDK's
watchdog, so no Chromium outlives this process, even after a `kill -9`.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.workspace.agent_env import agent_environment
from openhands.sdk.workspace.processes import kill_process_group, register_process_group
from openhands.sdk.workspace.sandbox import sandbox_command, sandbox_plan
from openhands.tools.browser_use.cdp import CDPConnection
from openhands.tools.browser_use.network import NetworkNamespace

__all__ = [
    "BROWSER_EXECUTABLE_ENV",
    "PROFILE_PREFIX",
    "BrowserProcess",
    "BrowserUnavailableError",
    "find_chromium",
    "start_chromium",
]

BROWSER_EXECUTABLE_ENV = "OH_BROWSER_EXECUTABLE"
"""The Chromium (or Chrome) program to drive, when not Debian's `/usr/bin/chromium`."""

PROFILE_PREFIX = "oh-browser-"
"""Start of the profile folder's name (it names the browser's processes in `ps`)."""

_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")

_FLAGS = (
    "--remote-debugging-pipe",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-breakpad",
    "--disable-crash-reporter",
    "--disable-dev-shm-usage",
    "--disable-features=Translate,MediaRouter,OptimizationHints,BackForwardCache",
    "--password-store=basic",
    "--use-mock-keychain",
    "--mute-audio",
    "--hide-scrollbars",
    "--metrics-recording-only",
)

# Renumber the pipe's two descriptors to 3 and 4 (Chromium's), then become Chromium. bash,
# not sh: dash cannot redirect descriptors above 9.
_RENUMBER = 'exec 3<&"$1" 4>&"$2" {a}<&- {b}>&-; shift 2; exec "$@"'


class BrowserUnavailableError(OpenHandsError, RuntimeError):
    """Chromium cannot be found or did not start; the message says why and what to do."""


def find_chromium(explicit: str | None = None) -> str | None:
    """The Chromium to run: `explicit`, else `OH_BROWSER_EXECUTABLE`, else Debian's
    `/usr/bin/chromium` or the first of chromium, chromium-browser, google-chrome on PATH,
    else one in a standard place or Playwright's download cache (`chromium_paths.py`)."""
    wanted = explicit or os.environ.get(BROWSER_EXECUTABLE_ENV)
    if wanted:
        return shutil.which(wanted)
    for candidate in _CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    from openhands.tools.browser_use.chromium_paths import installed_chromium

    return installed_chromium()


@dataclass
class BrowserProcess:
    """One running Chromium: its process, its DevTools connection and what to remove at close."""

    process: subprocess.Popen[bytes]
    connection: CDPConnection
    network: str | None
    """The network namespace it runs in (`net:[inode]`), or None for this process's own."""
    profile: str
    """Its profile folder as Chromium sees it (unique: it names the browser's processes)."""
    profile_dir: str | None = None
    """A profile folder on this machine's disk to remove at close (None: inside the sandbox)."""
    _stderr: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=20))
    _closed: bool = False

    @property
    def alive(self) -> bool:
        """True while Chromium runs and its pipe is open."""
        return not self._closed and self.process.poll() is None and not self.connection.closed

    def last_output(self) -> str:
        """Chromium's last lines on stderr (why it did not start, or why it died)."""
        return "\n".join(self._stderr)

    def close(self) -> None:
        """Kill Chromium and all it started, then remove its profile (once)."""
        if self._closed:
            return
        self._closed = True
        self.connection.close()
        kill_process_group(self.process.pid)  # before reaping: the pid must still be ours
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        if self.profile_dir is not None:
            shutil.rmtree(self.profile_dir, ignore_errors=True)


def start_chromium(
    executable: str,
    *,
    workspace: str,
    network: NetworkNamespace | None,
    headless: bool = True,
    window_size: tuple[int, int] = (1280, 800),
    extra_args: Sequence[str] = (),
    startup_timeout: float = 30.0,
) -> BrowserProcess:
    """Start Chromium for the conversation of `workspace`, in `network` if given (see the
    module docstring), and wait until it answers on its DevTools pipe.

    Raises `BrowserUnavailableError` with Chromium's own last words when it does not start.
    """
    plan = sandbox_plan(workspace)
    name = PROFILE_PREFIX + uuid.uuid4().hex[:12]
    profile_dir = None if plan is not None else tempfile.mkdtemp(prefix=name + "-")
    profile = f"/tmp/{name}" if plan is not None else profile_dir
    assert profile is not None
    chromium = [
        executable,
        "--headless=new" if headless else "--ozone-platform-hint=auto",
        f"--user-data-dir={profile}",
        f"--window-size={window_size[0]},{window_size[1]}",
        *_FLAGS,
        *extra_args,
    ]
    if plan is not None or os.geteuid() == 0:
        # In the sandbox, bubblewrap is the boundary (it leaves no way to make Chromium's
        # own namespaces); as root, Chromium refuses to start with its sandbox.
        chromium.append("--no-sandbox")
    chromium.append("about:blank")

    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    # Above 9, so renumbering to 3 and 4 can never close one of them by accident.
    child_r, child_w = _high(to_browser_r), _high(from_browser_w)
    renumber = _RENUMBER.format(a=child_r, b=child_w)
    inner = ["bash", "--norc", "--noprofile", "-c", renumber, "bash", str(child_r), str(child_w)]
    inner += chromium
    keep = [child_r, child_w]
    if network is not None:
        keep += [fd for fd in (network.fd, network.user_fd) if fd is not None]
    argv = _placed(inner, workspace=workspace, network=network)
    env = agent_environment()
    env.update(HOME=profile, XDG_CONFIG_HOME=profile, XDG_CACHE_HOME=profile)
    try:
        process = subprocess.Popen(
            argv,
            pass_fds=keep,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            cwd=workspace,
            start_new_session=True,  # its whole tree is one group: a kill reaches it all
        )
    except OSError as exc:
        for fd in (to_browser_w, from_browser_r):
            os.close(fd)
        if profile_dir is not None:
            shutil.rmtree(profile_dir, ignore_errors=True)
        raise BrowserUnavailableError(f"Could not start {executable}: {exc}") from exc
    finally:
        for fd in (child_r, child_w):
            os.close(fd)
    register_process_group(process.pid)
    browser = BrowserProcess(
        process=process,
        connection=CDPConnection(from_browser_r, to_browser_w),
        network=network.name if network is not None else None,
        profile=profile,
        profile_dir=profile_dir,
    )
    _drain(process, browser._stderr)
    try:
        browser.connection.call("Browser.getVersion", timeout=startup_timeout)
    except OpenHandsError as exc:
        browser.close()
        raise BrowserUnavailableError(
            f"Chromium ({executable}) did not start: {exc}\n{browser.last_output()}".strip()
        ) from exc
    return browser


def _placed(inner: list[str], *, workspace: str, network: NetworkNamespace | None) -> list[str]:
    """The command line that runs `inner` in the sandbox of `workspace`, in `network`."""
    if network is None:
        # No shell to share a network with: the sandbox's own (or none, when it is off).
        return sandbox_command(inner, workspace=workspace)
    plan = sandbox_plan(workspace)
    enter = network.nsenter_argv()
    if plan is None:
        return [*enter, *inner]
    # The shell's network namespace replaces the sandbox's own; all else is the plan's.
    options = [option for option in plan.options if option != "--unshare-net"]
    return [*enter, plan.bwrap, *options, "--", *inner]


def _high(fd: int) -> int:
    """`fd` moved to a number above 9 (close-on-exec, as `pass_fds` wants it)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def _drain(process: subprocess.Popen[bytes], tail: collections.deque[str]) -> None:
    """Keep reading Chromium's chatter (a full pipe would stall it), keeping the last lines."""
    stream = process.stderr
    if stream is None:
        return

    def read() -> None:
        with contextlib.suppress(OSError, ValueError):
            for raw in stream:
                line = raw.decode("utf-8", "replace").rstrip()
                if line and "dbus" not in line:  # headless Chromium misses a session bus
                    tail.append(line)
        with contextlib.suppress(OSError):
            stream.close()

    threading.Thread(target=read, name="browser-stderr", daemon=True).start()
