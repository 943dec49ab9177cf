"""`TerminalTool`: the agent's persistent bash shell in the workspace."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from openhands.sdk.conversation.secret_registry import SecretRegistry, secret_registry_of
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.llm import ImageContent, TextContent
from openhands.sdk.tool import Action, Observation, ToolContext, ToolDefinition, ToolExecutor
from openhands.sdk.utils.truncate import truncate_middle
from openhands.tools.params import parse_params
from openhands.tools.terminal.launch import resolve_user
from openhands.tools.terminal.output import TerminalMetadata, clean_output
from openhands.tools.terminal.session import (
    ShellOutput,
    TerminalSession,
    TerminalSessionError,
)
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

DEFAULT_TIMEOUT = 120.0
DEFAULT_INPUT_TIMEOUT = 10.0
DEFAULT_MAX_OUTPUT_CHARS = 30_000
TRUNCATED_NOTE = (
    "Long output truncated in the middle: redirect it to a file and view parts of it "
    "to see everything."
)
_KEY = re.compile(r"^C-([a-zA-Z])$")

DESCRIPTION = """Run a bash command in a persistent shell in the workspace.
* State persists between calls: `cd`, exported variables and shell functions stay in effect.
* Several lines, pipes, `&&` and heredocs are fine; one call runs them as one command.
* A command that runs longer than `timeout` seconds (default 120) keeps running: you get the
  output so far. Then send `is_input=true` with an empty command to wait for more, with
  text to type it into the program (a newline is added), or with `C-c` to interrupt it
  (`C-d`, `C-z` and other `C-<letter>` keys work too).
* Long output is truncated in the middle; redirect it to a file and read parts of it.
* Run long-lived servers in the background (`cmd > server.log 2>&1 &`).
* Interactive full-screen programs (editors, pagers) are not supported; pagers are off.
* A shell that no longer answers can be replaced: `reset=true` starts a new one."""


class TerminalAction(Action):
    """Arguments of `terminal`."""

    command: str = Field(
        description=(
            "The bash command to run. With is_input=true: text for the running command, "
            "or a key such as C-c; empty to wait for more output."
        )
    )
    is_input: bool = Field(
        default=False,
        description="Send `command` to the still-running previous command instead of the shell.",
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=86_400,
        description="Seconds to wait before returning with the command still running.",
    )
    reset: bool = Field(
        default=False,
        description="Kill the shell and everything it runs and start a new one in the "
        "workspace (cd, variables and background jobs are lost), then run `command` if given. "
        "For a stuck shell; not with is_input.",
    )


_NOTE = re.compile(r"^\[(.*)\]$", re.MULTILINE)


class TerminalObservation(Observation):
    """The output of a terminal call and how the command ended.

    `content` (and so `text`) is the command's output; `notes` say how it ended (exit code,
    still running, truncation...). The LLM reads the output followed by the notes.

    Its JSON is the reference SDK's (`timeout`, and `metadata` holding the exit code, the
    working directory and the notes as `suffix`), so the reference's clients read it; both
    that shape and this class's field names are read back.
    """

    command: str = ""
    exit_code: int | None = Field(
        default=None, description="The command's exit status; None while it is still running."
    )
    timed_out: bool = False
    working_dir: str | None = None
    notes: list[str] = Field(
        default_factory=list, description="How the call ended, shown to the LLM after the output."
    )

    @model_validator(mode="before")
    @classmethod
    def _from_reference_shape(cls, data: Any) -> Any:
        if not isinstance(data, dict) or ("metadata" not in data and "timeout" not in data):
            return data
        data = dict(data)
        metadata = data.pop("metadata", None) or {}
        data.pop("full_output_save_dir", None)
        if "timeout" in data:
            data.setdefault("timed_out", bool(data.pop("timeout")))
        if isinstance(metadata, dict):
            data.setdefault("working_dir", metadata.get("working_dir"))
            suffix = metadata.get("suffix") or ""
            data.setdefault("notes", _NOTE.findall(suffix))
        if data.get("command") is None:
            data["command"] = ""
        return data

    @model_serializer(mode="wrap")
    def _to_reference_shape(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        notes = data.pop("notes", [])
        working_dir = data.pop("working_dir", None)
        data["timeout"] = data.pop("timed_out", False)
        data["metadata"] = {
            "exit_code": -1 if self.exit_code is None else self.exit_code,
            "working_dir": working_dir,
            "suffix": "\n".join(f"[{note}]" for note in notes),
        }
        return data

    @property
    def metadata(self) -> TerminalMetadata:
        """The exit code, folder and notes under the reference's names (read-only)."""
        return TerminalMetadata(
            exit_code=-1 if self.exit_code is None else self.exit_code,
            working_dir=self.working_dir,
            suffix="\n".join(f"[{note}]" for note in self.notes),
        )

    @property
    def timeout(self) -> bool:
        """The reference's name for `timed_out`."""
        return self.timed_out

    @property
    def to_llm_content(self) -> list[TextContent | ImageContent]:
        """The output, then each note in brackets (an error gets a header line first)."""
        lines = [self.text] if self.text else []
        lines.extend(f"[{note}]" for note in self.notes)
        parts: list[TextContent | ImageContent] = []
        if self.is_error:
            parts.append(TextContent(text=self.ERROR_MESSAGE_HEADER))
        parts.append(TextContent(text="\n".join(lines)))
        return parts


class TerminalExecutor(ToolExecutor[TerminalAction, TerminalObservation]):
    """Runs terminal actions on one lazily started `TerminalSession` per conversation."""

    def __init__(
        self,
        working_dir: str,
        *,
        default_timeout: float = DEFAULT_TIMEOUT,
        max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
        env: dict[str, str] | None = None,
        no_change_timeout_seconds: float | None = None,
        username: str | None = None,
    ) -> None:
        self.working_dir = working_dir
        self.default_timeout = default_timeout
        self.max_output_chars = max_output_chars
        self.no_change_timeout_seconds = no_change_timeout_seconds
        self.username = username
        self._env = env
        self._session: TerminalSession | None = None
        self._secrets: SecretRegistry | None = None  # the conversation's, once it calls
        self._lock = threading.Lock()
        self._closed = False

    def __call__(
        self, action: TerminalAction, conversation: BaseConversation | None = None
    ) -> TerminalObservation:
        """Run the action and describe the outcome for the LLM."""
        with self._lock:
            if self._closed:
                return self._error(action, "The terminal was closed with its conversation.")
            notes: list[str] = []
            self._secrets = secret_registry_of(conversation)
            if action.reset:
                return self._reset(action, notes)
            try:
                session = self._live_session(notes, restart=not action.is_input)
                if action.is_input:
                    return self._input(session, action, notes)
                return self._command(session, action, notes)
            except TerminalSessionError as exc:
                return self._error(action, f"{exc}")

    def shell_pid(self) -> int | None:
        """The pid of the shell's process, starting the shell if it is not running; None once
        closed or if it cannot start. Other tools of the conversation use it to share the
        shell's sandbox network (the browser opens the servers the agent starts here)."""
        with self._lock:
            if self._closed:
                return None
            try:
                running = self._live_session([], restart=True).process_ids()
            except TerminalSessionError:
                return None
            return running[0] if running else None

    def process_ids(self) -> list[int]:
        """The shell's process (its tree holds the agent's background jobs), if it runs."""
        session = self._session
        return session.process_ids() if session is not None else []

    def close(self) -> None:
        """Kill the shell and everything it started."""
        with self._lock:
            self._closed = True
            if self._session is not None:
                self._session.close()
                self._session = None

    # -- actions ------------------------------------------------------------------------------

    def _reset(self, action: TerminalAction, notes: list[str]) -> TerminalObservation:
        if action.is_input:
            raise InvalidArgumentError(
                "Cannot use reset=True with is_input=True: a reset starts a new shell, so "
                "there is no running command to send input to. Send reset alone."
            )
        if self._session is not None:
            self._session.close()
            self._session = None
        note = (
            f"Terminal session has been reset: a new shell in {self.working_dir} (earlier cd, "
            "exported variables and background jobs are gone)."
        )
        shown = f"[RESET] {action.command}".rstrip()
        if not action.command.strip():
            return TerminalObservation.from_text(
                note, command=shown, exit_code=0, working_dir=self.working_dir
            )
        try:
            result = self._command(self._live_session(notes, restart=True), action, notes)
        except TerminalSessionError as exc:
            return self._error(action, f"{note} {exc}")
        text = f"{note}\n{result.text}" if result.text else note
        return result.model_copy(update={"command": shown, "content": [TextContent(text=text)]})

    def _command(
        self, session: TerminalSession, action: TerminalAction, notes: list[str]
    ) -> TerminalObservation:
        if session.is_running:
            if action.command.strip():
                notes.append("Your command was NOT run: the previous command is still running.")
                return self._observe(action, session.wait(0), notes, waited=None, is_error=True)
            timeout = action.timeout or self.default_timeout
            result = session.wait(timeout, no_change_timeout=self._no_change(action))
            return self._observe(action, result, notes, waited=timeout)
        if not action.command.strip():
            return self._error(action, "The command is empty: give a bash command to run.")
        timeout = action.timeout or self.default_timeout
        # Secrets the command names are exported first (the script file is private and deleted).
        exports = self._secrets.export_script(action.command) if self._secrets else ""
        result = session.run(
            exports + action.command, timeout, no_change_timeout=self._no_change(action)
        )
        return self._observe(action, result, notes, waited=timeout)

    def _input(
        self, session: TerminalSession, action: TerminalAction, notes: list[str]
    ) -> TerminalObservation:
        if not session.is_running:
            return self._error(
                action,
                "No command is running, so there is nothing to send input to. "
                "Send the command with is_input=false.",
            )
        timeout = action.timeout or DEFAULT_INPUT_TIMEOUT
        quiet = self._no_change(action)
        key = _KEY.match(action.command.strip())
        if key is not None:
            result = session.send_input(chr(ord(key.group(1).upper()) - 64), timeout)
        elif action.command:
            text = action.command if action.command.endswith("\n") else action.command + "\n"
            result = session.send_input(text, timeout, no_change_timeout=quiet)
        else:
            result = session.wait(timeout, no_change_timeout=quiet)
        return self._observe(action, result, notes, waited=timeout)

    # -- helpers ------------------------------------------------------------------------------

    def _no_change(self, action: TerminalAction) -> float | None:
        # An explicit `timeout` is the agent asking to wait that long: it is honoured in full.
        return self.no_change_timeout_seconds if action.timeout is None else None

    def _live_session(self, notes: list[str], *, restart: bool) -> TerminalSession:
        session = self._session
        if session is not None and session.is_alive:
            return session
        if session is not None:
            session.close()
            self._session = None
            if not restart:
                raise TerminalSessionError(
                    "The shell has exited, so there is no command to send input to. "
                    "Send a command with is_input=false to start a new shell."
                )
            notes.append(
                f"The previous shell had exited; this command ran in a new shell in "
                f"{self.working_dir} (earlier cd and exported variables are gone)."
            )
        session = TerminalSession(self.working_dir, env=self._env, username=self.username)
        session.start()
        self._session = session
        return session

    def _observe(
        self,
        action: TerminalAction,
        result: ShellOutput,
        notes: list[str],
        *,
        waited: float | None,
        is_error: bool = False,
    ) -> TerminalObservation:
        cleaned = clean_output(result.output).strip("\n")
        if self._secrets is not None:  # no secret value reaches the LLM, events or logs
            cleaned = self._secrets.mask(cleaned)
        output = truncate_middle(cleaned, self.max_output_chars)
        if len(cleaned) > self.max_output_chars:
            notes = [*notes, TRUNCATED_NOTE]
        if result.shell_exited:
            footer = (
                f"The shell exited (exit code {result.exit_code}); "
                "the next command starts a new shell in the workspace."
            )
        elif result.finished:
            footer = f"Exit code: {result.exit_code}. Working directory: {result.working_dir}"
        else:
            if result.output_idle:
                since = f" (no new output for {self.no_change_timeout_seconds:g} s)"
            else:
                since = f" (no exit after {waited:g} s)" if waited else ""
            footer = (
                f"The command is still running{since}. Send is_input=true with an empty command to wait for more output, with text to "
                "give it input, or with C-c to interrupt it."
            )
        return TerminalObservation.from_text(
            output,
            notes=[*notes, footer],
            is_error=is_error,
            command=action.command,
            exit_code=result.exit_code if result.finished else None,
            timed_out=not result.finished,
            working_dir=result.working_dir,
        )

    @staticmethod
    def _error(action: TerminalAction, message: str) -> TerminalObservation:
        return TerminalObservation.from_text(message, is_error=True, command=action.command)


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class TerminalParams(BaseModel):
    """The `params` of a `Tool(name="terminal")` spec."""

    model_config = ConfigDict(extra="forbid")

    timeout: float = Field(
        default=DEFAULT_TIMEOUT, gt=0, le=86_400, description="Default seconds per command."
    )
    max_output_chars: int = Field(
        default=DEFAULT_MAX_OUTPUT_CHARS, ge=1, description="Longer output is cut in the middle."
    )
    env: dict[str, str] | None = Field(default=None, description="Extra environment variables.")
    no_change_timeout_seconds: float | None = Field(
        default=None,
        gt=0,
        le=86_400,
        description=(
            "Return once a command's output has not changed for this many seconds (it keeps "
            "running, as after `timeout`), unless the agent gave the call its own timeout. "
            "None: wait for the full `timeout`."
        ),
    )
    username: str | None = Field(
        default=None,
        description="Run the shell as this user (needs root, or being that user). None: as is.",
    )

    @field_validator("env")
    @classmethod
    def _shell_names(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        # bash cannot read (or `export`) a variable whose name is not a shell name.
        bad = sorted(name for name in value or {} if not _ENV_NAME.fullmatch(name))
        if bad:
            raise ValueError(
                f"Invalid terminal environment variable name(s) {bad}: a name is letters, "
                "digits and '_', not starting with a digit"
            )
        return value

    @field_validator("username")
    @classmethod
    def _user_exists_and_is_reachable(cls, value: str | None) -> str | None:
        if value is not None:
            resolve_user(value)  # fail when the conversation is built, not at the first command
        return value


class TerminalTool(ToolDefinition[TerminalAction, TerminalObservation]):
    """A persistent bash shell in the workspace (cd and variables survive between calls)."""

    description = DESCRIPTION
    action_type = TerminalAction
    observation_type = TerminalObservation

    @classmethod
    def create(
        cls, context: ToolContext, executor: TerminalExecutor | None = None, **params: Any
    ) -> Sequence[TerminalTool]:
        """Build the terminal for one conversation.

        Params: `timeout` (default seconds per command), `max_output_chars`, `env` (extra
        environment variables), `no_change_timeout_seconds`, `username` (see `TerminalParams`).
        The shell starts on the first command. In Python, `executor=` gives a ready
        `TerminalExecutor` to share (e.g. with another tool); the params are still checked.
        """
        settings = parse_params(TerminalParams, "terminal", params)
        if executor is not None:
            return [cls(executor=executor)]
        executor = TerminalExecutor(
            context.working_dir,
            default_timeout=settings.timeout,
            max_output_chars=settings.max_output_chars,
            env=settings.env,
            no_change_timeout_seconds=settings.no_change_timeout_seconds,
            username=settings.username,
        )
        return [cls(executor=executor)]
