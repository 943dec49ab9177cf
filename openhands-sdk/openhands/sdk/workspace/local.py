"""`LocalWorkspace`: a folder on this machine where the agent works."""

from __future__ import annotations

from pathlib import Path, PurePath
from types import TracebackType
from typing import TYPE_CHECKING, Literal

from openhands.sdk.workspace.sandbox import SandboxMode
from openhands.sdk.workspace.shell import CommandResult, run_shell
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator


class LocalWorkspace(BaseModel):
    """A working directory on the local machine (created if missing)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    kind: Literal["LocalWorkspace"] = "LocalWorkspace"
    working_dir: str = Field(
        description="Folder where tools run and files are edited (a str or a Path; kept as an "
        "absolute str)."
    )
    sandbox: SandboxMode | None = Field(
        default=None,
        exclude_if=lambda value: value is None,  # unset: the JSON other SDKs know
        description="Run the agent's processes in a bubblewrap sandbox: 'bwrap' (required), "
        "'auto' (when it works) or 'off'. None: the process default (OH_SANDBOX, else off). "
        "An agent server applies its own OH_SANDBOX instead.",
    )

    _accumulated_cost: float | None = PrivateAttr(default=None)
    _conversation_id: str | None = PrivateAttr(default=None)

    if TYPE_CHECKING:
        # What callers may pass (pydantic's own signature would say `str` only).
        def __init__(
            self,
            *,
            working_dir: str | PurePath,
            kind: Literal["LocalWorkspace"] = ...,
            sandbox: SandboxMode | None = ...,
        ) -> None: ...

    @field_validator("working_dir", mode="before")
    @classmethod
    def _absolute(cls, value: object) -> object:
        if isinstance(value, PurePath):
            value = str(value)
        if not isinstance(value, str):
            return value  # pydantic reports the wrong type
        if not value.strip():
            raise ValueError("working_dir must not be blank")
        try:
            return str(Path(value).expanduser().resolve())
        except (OSError, RuntimeError) as exc:
            # pydantic only reports ValueErrors as invalid input; these would escape raw.
            raise ValueError(f"working_dir cannot be resolved: {exc}") from exc

    def ensure_exists(self) -> Path:
        """Create the working directory if needed and return it."""
        path = Path(self.working_dir)
        if path.exists() and not path.is_dir():
            raise NotADirectoryError(
                f"working_dir {path} is a file, not a folder; give the folder to work in."
            )
        path.mkdir(parents=True, exist_ok=True)
        return path

    def execute_command(self, command: str, *, timeout: float | None = 300.0) -> CommandResult:
        """Run `command` with bash in the working directory (in the workspace's sandbox);
        never raises on failure."""
        return run_shell(command, self.ensure_exists(), timeout=timeout, sandbox=self.sandbox)

    # -- the automation completion callback (see workspace/completion_callback.py) ----------

    def register_cost(self, cost: float) -> None:
        """Record the run's LLM cost in USD (a conversation in this workspace does it when it
        closes); `with workspace:` reports it to an automation service on exit."""
        self._accumulated_cost = cost

    @property
    def accumulated_cost(self) -> float | None:
        """The cost last registered, or None."""
        return self._accumulated_cost

    def register_conversation_id(self, conversation_id: str) -> None:
        """Record the conversation run here, for the completion callback."""
        self._conversation_id = conversation_id

    def __eq__(self, other: object) -> bool:
        """Workspaces are equal when their fields are: the cost and conversation a run
        registered are bookkeeping, not what the workspace is."""
        if not isinstance(other, LocalWorkspace):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  (mutable, as pydantic's models are)

    def __enter__(self) -> LocalWorkspace:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        """Tell an automation service how the run ended (only when `AUTOMATION_CALLBACK_URL`
        is set); an exception from the block goes on unchanged."""
        from openhands.sdk.workspace.completion_callback import send_completion_callback

        send_completion_callback(
            exc_val, conversation_id=self._conversation_id, cost=self._accumulated_cost
        )
