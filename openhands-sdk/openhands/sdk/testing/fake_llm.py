"""`openhands-fake-llm`: the fake OpenAI-compatible server, answering with the demo script.

    openhands-fake-llm --port 8001
    LLM_MODEL=openai/fake LLM_BASE_URL=http://127.0.0.1:8001/v1 LLM_API_KEY=fake make serve

Every model name is answered by `DemoScript` (see `demo_script.py` for what the agent and the
judge say). It serves until Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from openhands.sdk.testing.demo_script import DemoScript
from openhands.sdk.testing.fake_openai_server import FALLBACK_MODEL, FakeOpenAIServer

DEFAULT_PORT = 8001
DEFAULT_DELAY = 0.5
"""Seconds before each answer by default: slow enough to watch a goal, fast enough to finish."""


def build_parser() -> argparse.ArgumentParser:
    """The command line of `openhands-fake-llm`."""
    parser = argparse.ArgumentParser(
        prog="openhands-fake-llm",
        description="A scripted OpenAI-compatible server for trying goals without a model: "
        "the agent writes and runs hello_goal.py, then a test for it; the judge completes "
        "the goal in round 2.",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT}; 0: any)"
    )
    parser.add_argument(
        "--delay",
        type=float,
        default=DEFAULT_DELAY,
        help=f"seconds to wait before each answer (default: {DEFAULT_DELAY}; 0: none)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the demo script until interrupted; returns the exit code."""
    args = build_parser().parse_args(argv)
    if args.delay < 0:
        print("openhands-fake-llm: --delay must be >= 0", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print("openhands-fake-llm: --port must be between 0 and 65535", file=sys.stderr)
        return 2
    server = FakeOpenAIServer(host=args.host, port=args.port)
    server.set_responder(FALLBACK_MODEL, DemoScript(delay=args.delay))
    try:
        server.start()
    except OSError as exc:
        print(
            f"openhands-fake-llm: cannot listen on {args.host}:{args.port} ({exc.strerror or exc}); "
            "pick another --port",
            file=sys.stderr,
        )
        return 2
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print(
        f"openhands-fake-llm: serving the demo script on {server.base_url}\n"
        f"  use it with: LLM_MODEL=openai/fake LLM_BASE_URL={server.base_url} LLM_API_KEY=fake\n"
        "  Ctrl-C stops it",
        flush=True,
    )
    try:
        while not stop.wait(0.5):
            pass
    finally:
        server.stop()
    print("openhands-fake-llm: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
