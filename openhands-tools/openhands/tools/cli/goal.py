"""`openhands-goal`: work on a goal from the shell until a judge finds it proven done.

    openhands-goal "make the tests pass" --verify "pytest -q" --max-iterations 8 --max-cost 2

The agent gets the terminal and file editor tools in the current folder (`--workspace`);
its LLM comes from LLM_MODEL / LLM_API_KEY / LLM_BASE_URL or the flags. Progress is shown
live on a terminal, as plain lines otherwise, or as JSON lines with `--json`. Exit code: 0
complete, 1 capped, 2 interrupted or any error. Every flag is described in docs/cli.md.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from openhands.sdk.conversation.goal import GoalStatus
from openhands.sdk.errors import OpenHandsError
from openhands.tools.cli.options import (
    CONVERSATIONS_DIR,
    EXIT_STOPPED,
    SESSION_KEY_ENV,
    GoalCommandError,
    GoalOptions,
    Output,
    command_prefix,
    exit_code,
    more_rounds,
)
from openhands.tools.cli.views import GoalView, JsonView, LiveView, PlainView

PROG = "openhands-goal"


def build_parser() -> argparse.ArgumentParser:
    """The command line of `openhands-goal`."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Keep an agent working on OBJECTIVE until an independent judge (and the "
        "--verify command) proves it done, or a limit is reached. Exit code: 0 complete, "
        "1 capped, 2 interrupted or error.",
    )
    parser.add_argument("objective", nargs="?", help="what must be true when the goal is done")
    goal = parser.add_argument_group("the goal")
    goal.add_argument(
        "--verify", metavar="CMD", help="shell command that must exit 0 (e.g. 'pytest -q')"
    )
    goal.add_argument(
        "--max-iterations", type=int, metavar="N", help="rounds (agent run + verdict); default 10"
    )
    goal.add_argument(
        "--max-cost", type=float, metavar="USD", help="budget for agent + judge; 0: unlimited"
    )
    goal.add_argument(
        "--time-limit", type=float, metavar="SECONDS", help="wall-clock budget; 0: unlimited"
    )
    goal.add_argument(
        "--max-steps", type=int, metavar="N", help="agent steps per round (default 500)"
    )
    model = parser.add_argument_group("the model (default: LLM_MODEL, LLM_API_KEY, LLM_BASE_URL)")
    model.add_argument("--model", help="litellm model name, e.g. openai/gpt-4o-mini")
    model.add_argument("--base-url", help="OpenAI-compatible endpoint URL")
    model.add_argument("--llm-api-key", metavar="KEY", help="the provider's key")
    model.add_argument("--judge-model", metavar="MODEL", help="another model for the judge")
    where = parser.add_argument_group("where it runs")
    where.add_argument(
        "--workspace", type=Path, metavar="DIR", help="the agent's folder (default: current)"
    )
    where.add_argument(
        "--conversations-dir",
        type=Path,
        metavar="DIR",
        help=f"where conversations persist (default: <workspace>/{CONVERSATIONS_DIR})",
    )
    where.add_argument("--conversation-id", metavar="ID", help="the conversation to use or resume")
    where.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted goal (the newest one); with --max-iterations, "
        "--max-cost or --time-limit also a capped one, under those new limits",
    )
    where.add_argument(
        "--rewind",
        metavar="SNAPSHOT",
        help="restore the workspace to a snapshot (its id, as the round lines print it) "
        "first; alone it then exits, with --resume the goal goes on from there",
    )
    where.add_argument(
        "--server", metavar="URL", help="run on this agent server instead (http://HOST:PORT)"
    )
    where.add_argument(
        "--api-key", metavar="KEY", help=f"the server's session key (default: ${SESSION_KEY_ENV})"
    )
    goal.add_argument(
        "--diff",
        action="store_true",
        help="at the end, print everything the goal changed in the workspace (a unified diff)",
    )
    goal.add_argument(
        "--confirm",
        action="store_true",
        help="ask before each tool call the agent makes (y / n / always allow)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="one JSON line per goal status")
    output.add_argument("--plain", action="store_true", help="plain lines even on a terminal")
    return parser


def parse_options(argv: Sequence[str] | None = None, *, tty: bool | None = None) -> GoalOptions:
    """The checked options of a command line (argparse exits 2 on a malformed one).

    Raises `GoalCommandError` for options that do not go together, and `InvalidGoalError`
    for a bad goal option (both `ValueError`s).
    """
    args = build_parser().parse_args(argv)
    if args.resume:
        given = [
            flag
            for flag, value in (("OBJECTIVE", args.objective), ("--verify", args.verify))
            if value is not None
        ]
        if given:
            raise GoalCommandError(
                f"--resume continues the stored goal with its own objective and verify "
                f"command (only its limits may change); leave out {', '.join(given)}."
            )
    elif args.rewind is not None:
        if args.objective is not None:
            raise GoalCommandError(
                "--rewind restores a snapshot of a goal's workspace: give it alone, or with "
                "--resume to go on from there (not with a new objective)."
            )
    elif args.objective is None:
        raise GoalCommandError('Say what the goal is: openhands-goal "OBJECTIVE" (or --resume).')
    if args.diff and args.json:
        raise GoalCommandError("--diff prints text: leave out --json (stdout holds JSON only).")
    if args.rewind is not None and args.server is not None and args.conversation_id is None:
        raise GoalCommandError("--rewind with --server needs --conversation-id.")
    if args.server is not None and not args.server.startswith(("http://", "https://")):
        raise GoalCommandError(
            f"--server must be the agent server's URL, e.g. http://{args.server}, got "
            f"{args.server!r}."
        )
    if args.server is None and args.api_key is not None:
        raise GoalCommandError("--api-key is the agent server's key: use it with --server URL.")
    if args.server is not None and args.conversations_dir is not None:
        raise GoalCommandError(
            "--conversations-dir is for local goals; with --server the server keeps them."
        )
    if args.max_steps is not None and args.max_steps < 1:
        raise GoalCommandError(f"--max-steps must be >= 1, got {args.max_steps}")
    conversation_id: uuid.UUID | None = None
    if args.conversation_id is not None:
        try:
            conversation_id = uuid.UUID(args.conversation_id)
        except ValueError:
            raise GoalCommandError(
                f"--conversation-id must be a conversation's UUID, got {args.conversation_id!r}"
            ) from None
    workspace = (args.workspace or Path.cwd()).expanduser().resolve()
    if args.server is None and not workspace.is_dir():
        raise GoalCommandError(f"--workspace {workspace} is not a folder.")
    store = args.conversations_dir or workspace / CONVERSATIONS_DIR
    if tty is None:
        tty = sys.stdout.isatty()
    chosen: Output = "json" if args.json else "plain" if args.plain or not tty else "live"
    options = GoalOptions(
        objective=args.objective,
        verify=args.verify,
        max_iterations=args.max_iterations,
        max_cost=args.max_cost,
        time_limit=args.time_limit,
        model=args.model,
        base_url=args.base_url,
        llm_api_key=args.llm_api_key,
        judge_model=args.judge_model,
        workspace=workspace,
        conversations_dir=store.expanduser().resolve(),
        conversation_id=conversation_id,
        resume=args.resume,
        server=args.server.rstrip("/") if args.server else None,
        api_key=args.api_key,
        max_steps=args.max_steps,
        output=chosen,
        confirm=args.confirm,
        diff=args.diff,
        rewind=args.rewind,
    )
    if options.resume:
        options.limits_change()  # a bad new limit fails here, before anything starts
    elif options.rewind is None:
        options.goal_request()  # a bad limit fails here, before anything starts
    return options


def make_view(output: Output) -> GoalView:
    """The view for an output mode."""
    if output == "json":
        return JsonView()
    if output == "plain":
        return PlainView()
    return LiveView()


def rewind_only(options: GoalOptions, view: GoalView) -> int:
    """`--rewind` alone: restore the snapshot, say what changed and how to resume; exit code."""
    if options.server is not None:
        from openhands.tools.cli.remote_goal import rewind_remote as rewind
    else:
        from openhands.tools.cli.local_goal import rewind_local as rewind
    conversation_id, status = rewind(options, view)
    command = options.resume_command(conversation_id)
    if status is None or status.status == "complete":
        again = " ".join(command_prefix())
        view.notice(
            f'start a goal from there with: {again} --conversation-id {conversation_id} "..."'
        )
    elif status.status == "capped":
        view.notice(f"continue the goal from there with: {command} {more_rounds(status)}")
    else:
        view.notice(f"resume the goal from there with: {command}")
    return 0


def run(options: GoalOptions, view: GoalView) -> GoalStatus | None:
    """Run the goal locally or on the server; return its last status."""
    if options.server is not None:
        from openhands.tools.cli.remote_goal import run_remote

        return run_remote(options, view)
    from openhands.tools.cli.local_goal import run_local

    return run_local(options, view)


def _hint(options: GoalOptions, final: GoalStatus | None, conversation: str | None) -> str | None:
    if final is None or conversation is None:
        return None
    if final.status in ("interrupted", "running"):
        return f"resume it with: {options.resume_command(uuid.UUID(conversation))}"
    if final.status == "capped":
        command = options.resume_command(uuid.UUID(conversation))
        return f"continue it with new limits: {command} {more_rounds(final)}"
    return None


class _Hinted:
    """Remembers the conversation id a view was given, for the closing hint."""

    def __init__(self, view: GoalView) -> None:
        self.view = view
        self.conversation: str | None = None
        self.started = False
        self._diff: tuple[str, str] | None = None

    def begin(self, conversation_id: str, header: str) -> None:
        self.conversation = conversation_id
        self.started = True
        self.view.begin(conversation_id, header)

    def status(self, status: GoalStatus) -> None:
        self.view.status(status)

    def activity(self, text: str) -> None:
        self.view.activity(text)

    def step(self, text: str) -> None:
        self.view.step(text)

    def result(self, text: str) -> None:
        self.view.result(text)

    def notice(self, text: str) -> None:
        self.view.notice(text)

    def changes(self, text: str) -> None:
        self.view.changes(text)

    def diff(self, title: str, patch: str) -> None:
        self._diff = (title, patch)  # printed after the end line, by close()

    def hold(self) -> None:
        self.view.hold()

    def release(self) -> None:
        self.view.release()

    def close(self, final: GoalStatus | None, hint: str | None) -> None:
        self.view.close(final, hint)
        if self._diff is not None:
            self.view.diff(*self._diff)


def _cli_message(exc: BaseException) -> str:
    """An error in this command's words: its flags, not the SDK's field names."""
    from openhands.sdk.remote import RemoteAuthenticationError
    from openhands.sdk.remote.errors import RemoteConnectionError

    if isinstance(exc, RemoteConnectionError):
        return (
            f"Cannot reach the agent server at {exc.host} ({exc.cause}). Start one with "
            "`make serve` (or `openhands-agent-server --port 8000`), or check --server."
        )
    if isinstance(exc, RemoteAuthenticationError):
        what = "rejected the session key" if exc.has_key else "needs a session key"
        return (
            f"The agent server at {exc.host} {what} (HTTP {exc.status_code}): pass --api-key "
            f"or set {SESSION_KEY_ENV} to one of its OH_SESSION_API_KEYS."
        )
    return str(exc)


def _sigterm_as_ctrl_c(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Run `openhands-goal`; returns the exit code (0 complete, 1 capped, 2 otherwise)."""
    logging.basicConfig(
        level=logging.WARNING, format=f"{PROG}: %(levelname)s %(name)s: %(message)s"
    )
    try:
        options = parse_options(argv)
    except (OpenHandsError, ValueError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_STOPPED
    if threading.current_thread() is threading.main_thread():
        # Ctrl-C stops the goal cleanly even where SIGINT came in ignored (a background job of
        # a script); SIGTERM does the same.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _sigterm_as_ctrl_c)
    view = _Hinted(make_view(options.output))
    final: GoalStatus | None = None
    try:
        if options.rewind is not None and not options.resume:
            return rewind_only(options, view)
        final = run(options, view)
    except KeyboardInterrupt:
        final = None  # outside the goal loop (starting up or closing): nothing more runs
        print(f"{PROG}: interrupted", file=sys.stderr)
    except (OpenHandsError, ValueError, OSError) as exc:
        if view.started:
            view.close(None, None)
        print(f"{PROG}: error: {_cli_message(exc)}", file=sys.stderr)
        return EXIT_STOPPED
    if view.started:
        view.close(final, _hint(options, final, view.conversation))
    return exit_code(final)


if __name__ == "__main__":
    sys.exit(main())
