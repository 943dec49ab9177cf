"""The server's sandbox policy: what the agent's processes may see, from OH_SANDBOX*.

At start the server configures the SDK's sandbox (`openhands.sdk.workspace.sandbox`) for the
whole process: the conversations folder, the key file, the stored settings, secrets and
profiles (OH_SETTINGS_PATH) and a dormant server's init record are hidden from every sandboxed
process, and the parent of the default working directories is a workspace of its own (so a
conversation sees only its own folder in it, and /api/bash run there sees none of the
conversations' folders). Each conversation's working directory is claimed by the registry,
so no other conversation's processes see it. It then checks what this machine offers:
`OH_SANDBOX=bwrap` without a working bubblewrap stops the server; `auto` without one (or a
network without slirp4netns) logs a loud warning, also reported in /server_info.
"""

from __future__ import annotations

import logging

from openhands.agent_server.config import ServerConfig, ServerConfigError
from openhands.agent_server.services.sealing import key_file_path
from openhands.sdk.workspace.sandbox import (
    SandboxPolicy,
    SandboxStatus,
    claim_workspace,
    configure_sandbox,
    release_workspace,
    sandbox_status,
)

logger = logging.getLogger(__name__)


def start_sandbox(config: ServerConfig) -> SandboxStatus:
    """Configure the process-wide sandbox from `config` and report what it is here.

    Blocking (it may run bubblewrap once to see that it works). Raises `ServerConfigError`
    when OH_SANDBOX=bwrap and bubblewrap cannot run.
    """
    conversations = config.conversations_path.resolve()
    policy = SandboxPolicy(
        mode=config.sandbox,
        network=config.sandbox_network,
        # Everything the server keeps: conversations, the sealing key, the stored settings,
        # secrets and profiles, and a dormant server's sealed init record.
        hidden=(
            str(conversations),
            str(key_file_path(conversations)),
            str(config.settings_folder.resolve()),
            str(config.init_record_file.resolve()),
        ),
        writable=config.sandbox_writable,
    )
    configure_sandbox(policy)
    claim_workspace(config.workspace_path.resolve())
    status = sandbox_status()
    if config.sandbox == "bwrap" and not status.active:
        stop_sandbox(config)
        raise ServerConfigError(
            f"OH_SANDBOX=bwrap, but {status.warning}. Install bubblewrap (and slirp4netns for "
            "the network), allow unprivileged user namespaces, or set OH_SANDBOX=auto or off."
        )
    if status.warning is not None:
        logger.warning("Sandbox: %s", status.warning)
    elif status.active:
        logger.info("Sandbox: bubblewrap, network %s", status.network)
    return status


def stop_sandbox(config: ServerConfig) -> None:
    """Undo `start_sandbox` (the process goes back to the environment's policy)."""
    release_workspace(config.workspace_path.resolve())
    configure_sandbox(None)
