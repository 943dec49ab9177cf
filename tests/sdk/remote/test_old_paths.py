"""The remote client moved into `openhands.sdk.remote`; every path it had still imports, and
gives the very same objects (so `isinstance` and `except` keep working across paths)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import openhands.sdk.remote.conversation
import openhands.sdk.remote.errors
import openhands.sdk.remote.events
import openhands.sdk.remote.factory
import openhands.sdk.remote.state
import openhands.sdk.remote.transport
import openhands.sdk.remote.workspace
import pytest

NEW = openhands.sdk.remote

OLD_PATHS: list[tuple[str, str, object]] = [
    ("openhands.sdk", "Conversation", NEW.factory.Conversation),
    ("openhands.sdk", "RemoteConversation", NEW.conversation.RemoteConversation),
    ("openhands.sdk", "RemoteWorkspace", NEW.workspace.RemoteWorkspace),
    ("openhands.sdk", "Workspace", NEW.factory.Workspace),
    ("openhands.sdk.conversation", "Conversation", NEW.factory.Conversation),
    ("openhands.sdk.conversation", "RemoteConversation", NEW.conversation.RemoteConversation),
    ("openhands.sdk.conversation.factory", "Conversation", NEW.factory.Conversation),
    (
        "openhands.sdk.conversation.remote",
        "RemoteConversation",
        NEW.conversation.RemoteConversation,
    ),
    ("openhands.sdk.conversation.remote", "RemoteState", NEW.state.RemoteState),
    ("openhands.sdk.conversation.remote", "RemoteEventCache", NEW.events.RemoteEventCache),
    (
        "openhands.sdk.conversation.remote",
        "RemoteConversationNotFoundError",
        NEW.errors.RemoteConversationNotFoundError,
    ),
    (
        "openhands.sdk.conversation.remote.conversation",
        "RemoteConversation",
        NEW.conversation.RemoteConversation,
    ),
    ("openhands.sdk.conversation.remote.client", "RemoteClient", None),
    ("openhands.sdk.conversation.remote.events", "EventStream", None),
    ("openhands.sdk.conversation.remote.errors", "RemoteServerError", NEW.errors.RemoteServerError),
    ("openhands.sdk.conversation.remote.errors", "START_HINT", NEW.errors.START_HINT),
    ("openhands.sdk.conversation.remote.goals", "RemoteGoals", None),
    ("openhands.sdk.conversation.remote.checkpoints", "RemoteCheckpoints", None),
    ("openhands.sdk.conversation.remote.state", "RemoteState", NEW.state.RemoteState),
    # The reference SDK's scripts import the two conversations from here.
    (
        "openhands.sdk.conversation.impl.remote_conversation",
        "RemoteConversation",
        NEW.conversation.RemoteConversation,
    ),
    ("openhands.sdk.conversation.impl.local_conversation", "LocalConversation", None),
    ("openhands.sdk.workspace", "RemoteWorkspace", NEW.workspace.RemoteWorkspace),
    ("openhands.sdk.workspace", "Workspace", NEW.factory.Workspace),
    ("openhands.sdk.workspace.factory", "Workspace", NEW.factory.Workspace),
    ("openhands.sdk.workspace.remote", "RemoteWorkspace", NEW.workspace.RemoteWorkspace),
    ("openhands.sdk.workspace.remote.base", "RemoteWorkspace", NEW.workspace.RemoteWorkspace),
    (
        "openhands.sdk.workspace.remote.base",
        "PROFILE_USAGE_PREFIX",
        NEW.workspace.PROFILE_USAGE_PREFIX,
    ),
    ("openhands.sdk.workspace.remote.errors", "RemoteConnectionError", None),
    ("openhands.sdk.workspace.remote.transport", "ServerClient", NEW.transport.ServerClient),
    ("openhands.sdk.workspace.remote.transport", "API_KEY_HEADER", NEW.transport.API_KEY_HEADER),
]


@pytest.mark.parametrize(("module", "name", "expected"), OLD_PATHS)
def test_an_old_path_gives_the_object_of_the_new_one(
    module: str, name: str, expected: object
) -> None:
    value = getattr(importlib.import_module(module), name)

    if expected is None:  # the same object as in the new home, found by its name
        home = getattr(value, "__module__", "")
        expected = getattr(importlib.import_module(home), name)
        assert home.startswith(("openhands.sdk.remote", "openhands.sdk.conversation.local"))
    assert value is expected


def test_from_import_of_an_old_module_path_works() -> None:
    from openhands.sdk.conversation.remote.conversation import RemoteConversation
    from openhands.sdk.workspace.remote.base import RemoteWorkspace

    assert RemoteConversation is NEW.conversation.RemoteConversation
    assert RemoteWorkspace is NEW.workspace.RemoteWorkspace


def test_an_unknown_name_on_an_old_path_is_an_attribute_error() -> None:
    old = importlib.import_module("openhands.sdk.workspace.remote.base")

    with pytest.raises(AttributeError, match="NoSuchName"):
        old.NoSuchName  # noqa: B018


def test_loading_the_conversation_and_workspace_packages_loads_no_remote_code() -> None:
    """The moved names load on first read, so the lower packages never pull the client in."""
    code = (
        "import sys, openhands.sdk.conversation, openhands.sdk.workspace\n"
        "print(sorted(m for m in sys.modules if m.startswith('openhands.sdk.remote.conv')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
