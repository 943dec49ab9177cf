"""`SecretRegistry`: the secrets of one conversation, given to the commands that name them.

`conversation.update_secrets({"GITHUB_TOKEN": "...", "DB_PASSWORD": MySource()})` registers
them. When the terminal runs a command that names a secret (`$GITHUB_TOKEN`,
`${GITHUB_TOKEN}` or the bare name), the value is fetched from its source and exported to the
shell for that command; every value ever handed out is replaced by `<secret-hidden>` in the
terminal's output, also base64-, hex- or URL-encoded (`secret_masking.py`), so a command that
prints one by accident does not put it into the LLM's context, the events or the log.
Masking is not a wall against the agent: the values are in its shell, and only the sandbox
and keeping secrets out of reach protect them from an agent set on getting them out. The registry lives in
memory only: secrets are never written to disk, so a reopened conversation needs
`update_secrets` again.
"""

from __future__ import annotations

import logging
import re
import shlex
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.secret.secrets import SecretSource, SecretValue, StaticSecret
from pydantic import SecretStr

if TYPE_CHECKING:
    from openhands.sdk.conversation.secret_masking import SecretMasker

__all__ = ["MASK", "SecretRegistry", "secret_registry_of"]

logger = logging.getLogger(__name__)

MASK = "<secret-hidden>"
"""What a secret value is replaced with in command output."""

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class SecretRegistry:
    """Named secret sources, looked up when a command names them; thread-safe."""

    def __init__(self) -> None:
        self._sources: dict[str, SecretSource] = {}
        self._seen: dict[str, str] = {}  # name -> the last value handed out (to mask it)
        self._lock = threading.Lock()
        # What finds the values in `_seen` (and their encodings), rebuilt when they change.
        self._masker: SecretMasker | None = None
        self._masker_for: frozenset[str] = frozenset()

    def update_secrets(self, secrets: Mapping[str, SecretValue]) -> None:
        """Add or replace secrets: each a value (str) or a `SecretSource`.

        Names must be valid environment variable names. Raises ValueError naming the first
        bad entry (nothing is added then).
        """
        sources: dict[str, SecretSource] = {}
        for name, value in secrets.items():
            if not isinstance(name, str) or not _NAME.match(name):
                raise InvalidArgumentError(
                    f"secret name {name!r} is not a valid environment variable name "
                    "(letters, digits and _, not starting with a digit)"
                )
            if isinstance(value, SecretSource):
                sources[name] = value
            elif isinstance(value, str):
                sources[name] = StaticSecret(value=SecretStr(value))
            else:
                raise InvalidArgumentError(
                    f"secret {name!r} must be a string or a SecretSource, "
                    f"got {type(value).__name__}"
                )
        with self._lock:
            self._sources.update(sources)
            for name, source in sources.items():
                self._seen.pop(name, None)
                if isinstance(source, StaticSecret) and (value := source.get_value()):
                    self._seen[name] = value  # known now: mask it even if never exported

    def sources(self) -> dict[str, SecretSource]:
        """A copy of the registered sources by name (a fork takes them over)."""
        with self._lock:
            return dict(self._sources)

    @property
    def names(self) -> list[str]:
        """The registered secret names, sorted."""
        with self._lock:
            return sorted(self._sources)

    def descriptions(self) -> dict[str, str | None]:
        """Each secret's description (for telling the agent which secrets exist)."""
        with self._lock:
            return {name: source.description for name, source in sorted(self._sources.items())}

    def get_secret_infos(self) -> list[dict[str, str | None]]:
        """`{"name", "description"}` of each registered secret, sorted by name (what the
        system prompt's `<CUSTOM_SECRETS>` lists)."""
        return [
            {"name": name, "description": description}
            for name, description in self.descriptions().items()
        ]

    def named_in(self, command: str) -> list[str]:
        """The registered secrets that `command` names (as $NAME, ${NAME} or NAME)."""
        with self._lock:
            names = list(self._sources)
        return [
            name
            for name in names
            if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", command)
        ]

    def env_for(self, command: str) -> dict[str, str]:
        """The environment variables to export for `command`: each secret it names.

        A source that fails (a lookup that errors) is logged without its value and left out.
        """
        env: dict[str, str] = {}
        for name in self.named_in(command):
            with self._lock:
                source = self._sources.get(name)
            if source is None:
                continue
            try:
                value = source.get_value()
            except Exception as exc:  # a user's source: never let it break the command
                logger.warning("secret %s could not be read: %s", name, type(exc).__name__)
                continue
            if value:
                env[name] = value
                with self._lock:
                    self._seen[name] = value
        return env

    def get_secrets_as_env_vars(self, command: str) -> dict[str, str]:
        """The reference's name for `env_for`: the secrets `command` names, by name."""
        return self.env_for(command)

    def export_script(self, command: str) -> str:
        """Bash lines exporting the secrets `command` names ("" when it names none)."""
        return "".join(
            f"export {name}={shlex.quote(value)}\n" for name, value in self.env_for(command).items()
        )

    def mask(self, text: str) -> str:
        """`text` with every secret value handed out so far replaced by MASK, also in base64,
        hex or URL-encoded form (`secret_masking`: a guard against accidents, not against
        an agent that wants the value out)."""
        if not text:
            return text
        with self._lock:
            values = frozenset(self._seen.values())
            if values != self._masker_for or self._masker is None:
                from openhands.sdk.conversation.secret_masking import SecretMasker

                self._masker = SecretMasker(values)
                self._masker_for = values
            masker = self._masker
        return masker.mask(text, MASK)


@runtime_checkable
class HoldsSecrets(Protocol):
    """A conversation state that keeps its secrets in this process (a local one's)."""

    @property
    def secret_registry(self) -> SecretRegistry:
        """The conversation's secrets."""
        ...


class HasState(Protocol):
    """A conversation, as far as its state goes (any `BaseConversation`)."""

    @property
    def state(self) -> object:
        """The conversation's state."""
        ...


def secret_registry_of(conversation: HasState | None) -> SecretRegistry | None:
    """The secret registry of a conversation in this process (None for a remote one, whose
    secrets stay on its server, or for no conversation)."""
    if conversation is None:
        return None
    state = conversation.state
    return state.secret_registry if isinstance(state, HoldsSecrets) else None
