"""What a `RemoteConversation` changes or asks on the server besides runs, goals, approvals
and checkpoints: interrupt, title, the HEAD of its event tree, secrets, condensation,
plugins, its LLM, and a question to its agent.

Each is one request to the route of the same name (the reference server's paths and bodies,
`openhands.sdk.wire.conversation_updates`); the server answers once the change is saved.
A bad argument is refused here, before any request, with the error a `LocalConversation`
raises for it (`InvalidArgumentError`); what only the server can know (an unknown event or
profile) comes back as the local error too (`UnknownEventError`, `NotFoundError`).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from openhands.sdk.conversation.errors import CondenserUnavailableError, UnknownEventError
from openhands.sdk.errors import InvalidArgumentError, NotFoundError
from openhands.sdk.remote.client import RemoteClient
from openhands.sdk.remote.errors import RemoteConflictError, RemoteConversationNotFoundError
from openhands.sdk.wire import (
    AskAgentRequest,
    AskAgentResponse,
    LoadPluginRequest,
    NavigateConversationRequest,
    SwitchLLMRequest,
    SwitchProfileRequest,
    UpdateConversationRequest,
    UpdateSecretsRequest,
    to_wire,
)
from openhands.sdk.wire.base import WireRequest
from pydantic import ValidationError

R = TypeVar("R", bound=WireRequest)

if TYPE_CHECKING:
    from openhands.sdk.llm.llm import LLM
    from openhands.sdk.plugin.types import PluginSource
    from openhands.sdk.secret import SecretValue


class RemoteControls:
    """Calls the server's control routes for one conversation."""

    def __init__(self, client: RemoteClient, conversation_id: uuid.UUID) -> None:
        """Bind to one conversation."""
        self._client = client
        self._id = conversation_id
        self._path = f"/api/conversations/{conversation_id}"

    def interrupt(self) -> None:
        """POST /interrupt."""
        self._post("interrupt")

    def set_title(self, title: str) -> None:
        """PATCH /{id} with the new title."""
        body = _checked(UpdateConversationRequest, title=title)
        self._client.request(
            "PATCH", self._path, json=to_wire(body), not_found=f"Conversation {self._id}"
        )

    def navigate_to(self, event_id: str | None) -> None:
        """POST /navigate."""
        body = _checked(NavigateConversationRequest, event_id=event_id)
        try:
            self._post("navigate", to_wire(body))
        except RemoteConversationNotFoundError as exc:
            if exc.code == "unknown_event":
                raise UnknownEventError(exc.detail) from None
            raise

    def update_secrets(self, secrets: Mapping[str, SecretValue]) -> None:
        """POST /secrets: each value sent as the server reads it (a string, a StaticSecret or
        a LookupSecret, values in clear: the server seals them)."""
        body = _checked(UpdateSecretsRequest, secrets=secret_specs(secrets))
        self._post("secrets", to_wire(body))

    def condense(self) -> None:
        """POST /condense."""
        try:
            self._post("condense")
        except RemoteConflictError as exc:
            if exc.code == CondenserUnavailableError.code:
                raise CondenserUnavailableError(exc.detail) from None
            raise

    def load_plugin(self, plugin: PluginSource | str) -> None:
        """POST /load_plugin with the plugin's reference (a folder on the server, a git URL,
        `github:owner/repo`, or `name@marketplace`)."""
        body = _checked(LoadPluginRequest, plugin_ref=_plugin_ref(plugin))
        self._post("load_plugin", to_wire(body))

    def switch_llm(self, llm: LLM) -> None:
        """POST /switch_llm (the LLM's key, if it has one, travels to the server)."""
        self._post("switch_llm", to_wire(_checked(SwitchLLMRequest, llm=llm)))

    def switch_profile(self, profile_name: str) -> None:
        """POST /switch_profile."""
        body = _checked(SwitchProfileRequest, profile_name=profile_name)
        try:
            self._post("switch_profile", to_wire(body))
        except RemoteConversationNotFoundError as exc:
            if exc.code == "unknown_profile":
                raise NotFoundError(exc.detail) from None
            raise

    def ask_agent(self, question: str) -> str:
        """POST /ask_agent: the agent's answer."""
        body = _checked(AskAgentRequest, question=question)
        answer = self._post("ask_agent", to_wire(body))
        return self._client.read_as(AskAgentResponse, answer, "POST ask_agent").response

    def _post(self, route: str, body: dict[str, Any] | None = None) -> Any:
        return self._client.request(
            "POST", f"{self._path}/{route}", json=body, not_found=f"Conversation {self._id}"
        )


def _checked(model: type[R], **fields: Any) -> R:
    """The request body, or an `InvalidArgumentError` naming the first bad field (the
    server would refuse it with a 422; refusing here says which argument to fix)."""
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or "argument"
        message = str(error["msg"]).removeprefix("Value error, ")
        raise InvalidArgumentError(f"{field}: {message}") from None


def secret_specs(secrets: Mapping[str, SecretValue]) -> dict[str, Any]:
    """`secrets` as the JSON of a secrets request: a source's fields with their values in
    clear, a string as it is."""
    from openhands.sdk.secret import SecretSource

    specs: dict[str, Any] = {}
    for name, value in secrets.items():
        if isinstance(value, SecretSource):
            specs[name] = value.model_dump(mode="json", context={"expose_secrets": True})
        elif isinstance(value, str):
            specs[name] = value
        else:
            raise InvalidArgumentError(
                f"Secret {name!r} is a {type(value).__name__}: give a string or a "
                "SecretSource (StaticSecret, LookupSecret)."
            )
    return specs


def _plugin_ref(plugin: PluginSource | str) -> str:
    """The reference the server's /load_plugin takes; a `PluginSource` that needs more than
    its source (a `ref` or a `repo_path`) has none."""
    if isinstance(plugin, str):
        return plugin
    if plugin.ref is not None or plugin.repo_path is not None:
        raise InvalidArgumentError(
            f"The agent server loads a plugin by one reference string; {plugin.source!r} "
            "with a ref or repo_path has none: pass it to RemoteConversation(plugins=[...]) "
            "when creating the conversation instead."
        )
    return plugin.source


__all__ = ["RemoteControls", "secret_specs"]
