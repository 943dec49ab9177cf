"""How the terminal's bash is started: its environment, its user, and the launcher program.

Started as a separate program rather than through Popen's `preexec_fn`, which is unsafe in a
multi-threaded process, and inside the workspace's sandbox when there is one (`launch_argv`
returns the whole command line). The launcher becomes a session leader (unless the sandbox
made it one), makes the pty (its stdin) the controlling terminal so the line discipline
delivers Ctrl-C to the foreground job, switches
to the user named in argv[1] if any (after TIOCSCTTY, which that user might not be allowed),
then becomes bash. argv[2] is bash's absolute path: after the switch, the new user may not be
able to read this Python's own library, which a PATH search would import from.

The launcher first gives the shell every job-control and pipe signal's default action: a
signal ignored when the server started (SIGINT and SIGQUIT for a program started with `&`
from a script, SIGHUP under nohup) stays ignored in every child, and bash cannot undo it, so
Ctrl-C would not stop a command; and Python itself ignores SIGPIPE, which would turn
`yes | head -1` into "Broken pipe" errors.
"""

from __future__ import annotations

import os
import pwd
import shutil
import sys
from collections.abc import Mapping

from openhands.sdk.errors import InvalidSettingError
from openhands.sdk.workspace.agent_env import agent_environment
from openhands.sdk.workspace.sandbox import sandbox_command

BASH_ARGS = ("bash", "--norc", "--noprofile", "--noediting", "-i")
"""bash, interactive (job control, so Ctrl-C reaches only the foreground job), no rc files."""

_UNSET_ENV = ("PS0", "PS1", "PS2", "PROMPT_COMMAND", "BASH_ENV", "ENV", "HISTFILE")
_QUIET_ENV = {"TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat", "MANPAGER": "cat"}

_LAUNCHER = """
import fcntl, os, signal, sys, termios
for name in ("SIGINT", "SIGQUIT", "SIGHUP", "SIGPIPE", "SIGXFSZ", "SIGTSTP", "SIGTTIN", "SIGTTOU"):
    signal.signal(getattr(signal, name), signal.SIG_DFL)
if os.getsid(0) != os.getpid():
    os.setsid()
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
if sys.argv[1]:
    import pwd
    user = pwd.getpwnam(sys.argv[1])
    os.initgroups(user.pw_name, user.pw_gid)
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)
os.execv(sys.argv[2], sys.argv[3:])
"""


def resolve_user(username: str) -> pwd.struct_passwd:
    """The account `username` names, if this process may run a shell as it; else ValueError.

    Switching to another user needs root (or this process already being that user).
    """
    try:
        user = pwd.getpwnam(username)
    except KeyError:
        raise InvalidSettingError(
            f"no user {username!r} on this machine; create it or leave username unset"
        ) from None
    if os.geteuid() not in (0, user.pw_uid):
        me = pwd.getpwuid(os.geteuid()).pw_name
        raise InvalidSettingError(
            f"cannot run the shell as {username!r}: this process runs as {me!r} without root; "
            "start the server as root or leave username unset"
        )
    return user


def shell_environment(user: pwd.struct_passwd | None, extra: Mapping[str, str]) -> dict[str, str]:
    """The shell's environment: the agent's (no server secrets), quiet pagers, `extra` last."""
    env = {k: v for k, v in agent_environment().items() if k not in _UNSET_ENV}
    env.update(_QUIET_ENV)
    if user is not None:
        env.update(HOME=user.pw_dir, USER=user.pw_name, LOGNAME=user.pw_name)
    env.update(extra)
    return env


def launch_argv(
    user: pwd.struct_passwd | None,
    env: Mapping[str, str],
    *,
    working_dir: str,
    command_dir: str,
) -> list[str]:
    """The command line that starts bash on the pty (stdin), as `user` if given, in the
    sandbox of `working_dir` (which also sees `command_dir`, where commands are written).

    Raises ValueError without bash, `SandboxUnavailableError` if a required sandbox cannot run.
    """
    bash = shutil.which(BASH_ARGS[0], path=env.get("PATH", os.defpath))
    if bash is None:
        raise InvalidSettingError("bash was not found on PATH; install bash to use the terminal")
    name = user.pw_name if user is not None else ""
    launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER, name, bash, *BASH_ARGS]
    return sandbox_command(
        launcher, workspace=working_dir, readable=[command_dir], switches_user=user is not None
    )
