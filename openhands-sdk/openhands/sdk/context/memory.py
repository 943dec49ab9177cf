"""Persistent memory: the `MEMORY.md` indexes the agent keeps across conversations.

Two tiers: the user's (`~/.openhands/memory/MEMORY.md`) and the project's
(`<workspace>/.openhands/memory/MEMORY.md`). With `AgentContext(load_memory=True)` a new
conversation reads both into its system prompt (the `<MEMORY_CONTEXT>` block of the dynamic
context), and the prompt tells the agent how to keep them. Daily notes beside them are not
loaded; the agent reads them when an index points to them.
"""

from __future__ import annotations

import logging
from pathlib import Path

from openhands.sdk.workspace.extension_files import read_text_beneath

logger = logging.getLogger(__name__)

__all__ = ["MEMORY_CHAR_BUDGET", "MEMORY_INDEX_RELPATH", "load_memory"]

MEMORY_INDEX_RELPATH = ".openhands/memory/MEMORY.md"
"""Where an index lives, relative to the home folder (user tier) or the workspace (project)."""

MEMORY_CHAR_BUDGET = 6000
"""How many characters of memory reach the prompt at most (the oldest lines are cut first)."""

TRUNCATED_NOTICE = "[earlier memory truncated]"

MEMORY_GUIDANCE = """\
<MEMORY>
You have persistent memory that outlives this conversation, in two tiers:
* Project memory: `.openhands/memory/` in the workspace (what is specific to this project).
* User memory: `~/.openhands/memory/` (preferences and knowledge for every project).
In each, `MEMORY.md` is a short index of durable facts: it is shown to you at the start of
every conversation, below, once it exists. Longer notes go in dated files
(`YYYY-MM-DD.md`) that you read when the index points to them.
* Before you finish a task, record what was costly to learn and will matter again: a decision
  and its reason, a root cause, an environment quirk, a user preference. Create the folder and
  files if they are missing; append, and keep the index under ~6000 characters.
* Never record secrets or credentials, nor what is quick to rediscover.
</MEMORY>"""
"""What the agent is told about keeping its memory (part of the dynamic context)."""


def _read_index(root: Path, workspace: Path | None = None) -> str | None:
    """The memory index under `root`, read from inside `root` only, as the sandbox of
    `workspace` shows it (it is the agent's to write: it may be a link, a FIFO, huge)."""
    path = root / MEMORY_INDEX_RELPATH
    try:
        text = read_text_beneath(root, path, workspace=workspace).strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        logger.warning("Cannot read the memory index %s (skipped): %s", path, exc)
        return None
    return text or None


def _keep_tail(body: str, budget: int) -> str:
    """`body` cut from the top, whole lines at a time, to `budget` characters (notice included)."""
    if len(body) <= budget:
        return body
    lines = body.splitlines()
    while lines:
        lines.pop(0)
        candidate = "\n".join([TRUNCATED_NOTICE, *lines])
        if len(candidate) <= budget:
            return candidate
    return TRUNCATED_NOTICE


def load_memory(
    working_dir: str | Path,
    char_budget: int = MEMORY_CHAR_BUDGET,
    *,
    home: str | Path | None = None,
) -> str | None:
    """The memory text for a conversation in `working_dir` (None when there is none).

    The user tier comes first, the project tier second, each under a heading. Over
    `char_budget` characters, each tier keeps its newest lines (the budget is shared, a short
    tier's leftover going to the other); the headings are always kept. `home` defaults to
    the user's home folder. Unreadable files are logged and skipped, never raised.
    """
    home_dir = Path(home) if home is not None else Path.home()
    tiers: list[tuple[str, str]] = []
    user = _read_index(home_dir)
    if user is not None:
        tiers.append((f"# User memory (~/{MEMORY_INDEX_RELPATH})", user))
    project = _read_index(Path(working_dir), Path(working_dir))
    if project is not None:
        tiers.append((f"# Project memory ({MEMORY_INDEX_RELPATH})", project))
    if not tiers:
        return None
    combined = "\n\n".join(f"{heading}\n{body}" for heading, body in tiers)
    if len(combined) <= char_budget:
        return combined
    overhead = sum(len(heading) + 1 for heading, _ in tiers) + 2 * (len(tiers) - 1)
    available = max(0, char_budget - overhead)
    shares = [min(len(body), available // len(tiers)) for _, body in tiers]
    spare = available - sum(shares)
    for index, (_, body) in enumerate(tiers):
        extra = min(spare, len(body) - shares[index])
        shares[index] += extra
        spare -= extra
    return "\n\n".join(
        f"{heading}\n{_keep_tail(body, share)}"
        for (heading, body), share in zip(tiers, shares, strict=True)
    )
