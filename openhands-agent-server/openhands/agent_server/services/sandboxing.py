"""The server's sandbox policy: what the agent's processes may see, from OH_SANDBOX*.

At start the server configures the SDK's sandbox (`openhands.sdk.workspace.sandbox`) for the
whole process: the conversations folder, the key file, the stored settings, secrets and
profiles (OH_SETTINGS_PATH) and a dormant server's init record are hidden from every sandboxed
process, and the parent of the default working directories is a workspace of its own (so a
conversation sees only its own folder in it, and /api/bash run there sees none of the
conversations' folders). Each conversation's working directory is claimed by the registry,
so no other conversation's processes see it. An OH_SANDBOX_WRITABLE folder that would undo
the sandbox (`/`, /proc, the server's venv, its data) stops the server.

It then checks what this machine offers and runs the self-check: one trivial command
through the sandbox, the server's Python and the terminal's launcher
(`openhands.sdk.workspace.sandbox_check`). `OH_SANDBOX=bwrap` without a working bubblewrap,
or with a failing self-check, stops the server with the reason; `auto` then runs the agent
unsandboxed, with a loud log line and the reason in /server_info (as it does without
slirp4netns for the network).
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from openhands.agent_server.config import ServerConfig, ServerConfigError
from openhands.agent_server.errors import InvalidRequestError
from openhands.agent_server.services.sealing import key_file_path
from openhands.sdk.workspace.sandbox import (
    SANDBOX_WRITABLE_ENV,
    SandboxPolicy,
    SandboxStatus,
    UnsafeWorkspaceError,
    check_workspace,
    claim_workspace,
    configure_sandbox,
    release_workspace,
    sandbox_status,
)
from pydantic import ValidationError

logger = logging.getLogger(__name__)


def start_sandbox(config: ServerConfig) -> SandboxStatus:
    """Configure the process-wide sandbox from `config`, check it, and report what it is here.

    Blocking (it runs bubblewrap a few times to see that it works). Raises
    `ServerConfigError` for an unsafe OH_SANDBOX_WRITABLE, and when OH_SANDBOX=bwrap and the
    sandbox cannot run or fails its self-check.
    """
    policy = sandbox_policy_of(config)
    configure_sandbox(policy)
    claim_workspace(config.workspace_path.resolve())
    status = sandbox_status()
    if config.sandbox == "bwrap" and not status.active:
        stop_sandbox(config)
        raise ServerConfigError(
            f"OH_SANDBOX=bwrap, but {status.warning}. Install bubblewrap (and slirp4netns for "
            "the network), allow unprivileged user namespaces, or set OH_SANDBOX=auto or off."
        )
    if status.active:
        status = _self_check(config, policy, status)
    if status.warning is not None and status.self_check != "failed":
        logger.warning("Sandbox: %s", status.warning)
    elif status.active:
        logger.info("Sandbox: bubblewrap, network %s, self-check passed", status.network)
    return status


def stop_sandbox(config: ServerConfig) -> None:
    """Undo `start_sandbox` (the process goes back to the environment's policy)."""
    release_workspace(config.workspace_path.resolve())
    configure_sandbox(None)


def refuse_unsafe_workspace(path: str | Path, loc: tuple[str | int, ...]) -> None:
    """Raise `InvalidRequestError` (422 at `loc`) when the sandbox cannot take `path` as a
    workspace: `/`, /proc, /dev, a folder holding the server's data (see `check_workspace`)."""
    try:
        check_workspace(path)
    except UnsafeWorkspaceError as exc:
        raise InvalidRequestError(str(exc), loc) from None


def sandbox_policy_of(config: ServerConfig) -> SandboxPolicy:
    """The sandbox policy `config` describes; `ServerConfigError` naming OH_SANDBOX_WRITABLE
    for a writable folder that would undo the sandbox (checked again at start)."""
    conversations = config.conversations_path.resolve()
    try:
        return SandboxPolicy(
            mode=config.sandbox,
            network=config.sandbox_network,
            # Everything the server keeps: conversations, the sealing key, the stored
            # settings, secrets and profiles, and a dormant server's sealed init record.
            hidden=(
                str(conversations),
                str(key_file_path(conversations)),
                str(config.settings_folder.resolve()),
                str(config.init_record_file.resolve()),
            ),
            writable=config.sandbox_writable,
        )
    except ValidationError as exc:
        problems = "; ".join(
            str(error["msg"]).removeprefix("Value error, ") for error in exc.errors()
        )
        raise ServerConfigError(f"{SANDBOX_WRITABLE_ENV}: {problems}") from None


def _self_check(
    config: ServerConfig, policy: SandboxPolicy, status: SandboxStatus
) -> SandboxStatus:
    """Run the self-check; on failure stop (bwrap) or go on without a sandbox (auto)."""
    # Imported here: the check runs once, and the terminal pulls in the tools package.
    from openhands.sdk.workspace.sandbox_check import self_check
    from openhands.tools.terminal.self_check import check_terminal

    problem = self_check([check_terminal])
    if problem is None:
        return dataclasses.replace(status, self_check="passed")
    if config.sandbox == "bwrap":
        stop_sandbox(config)
        raise ServerConfigError(
            f"OH_SANDBOX=bwrap, but the sandbox's self-check failed: {problem}. The agent's "
            "commands would not run. Report it with this message, or set OH_SANDBOX=off to "
            "run the agent unsandboxed."
        )
    configure_sandbox(policy.model_copy(update={"mode": "off"}))
    warning = (
        f"the agent's processes run WITHOUT a sandbox: the sandbox's self-check failed ({problem})"
    )
    logger.error(
        "Sandbox: %s. OH_SANDBOX=auto falls back to no sandbox; set OH_SANDBOX=off to say "
        "that is intended, or fix the cause.",
        warning,
    )
    return dataclasses.replace(
        status, active=False, network="host", warning=warning, self_check="failed"
    )
