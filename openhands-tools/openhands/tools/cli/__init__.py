"""Command-line programs built on the SDK and these tools: `openhands-goal` (see docs/cli.md).

Nothing here is imported by `openhands.tools` itself; `rich` is loaded only by the live view.
"""
