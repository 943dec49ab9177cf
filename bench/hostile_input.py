"""Costs of the guards against hostile input: standing approvals, secret masking, front matter.

Prints one JSON line (best of three runs each, since the machine is shared):

- `approval_rules_<n>_ms`: replacing a persisted conversation's standing approvals with n rules
  (`set_approval_rules`, one save). Linear: the 5,000-rule time stays within ~10x the 500-rule
  one (before, one save per rule: a PUT of 1,000 took 41 s on the server).
- `mask_200k_ms` / `mask_first_call_ms`: masking 200,000 characters of output with 10 secrets
  of 40 characters (each also in its base64, hex and URL-encoded forms); the first call also
  builds the patterns.
- `front_matter_us`: reading a typical SKILL.md front matter (the anchor, length and depth
  checks included).

Usage: `uv run python bench/hostile_input.py`
"""

from __future__ import annotations

import json
import os
import random
import string
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from openhands.sdk import Agent, LocalConversation
from openhands.sdk.conversation.secret_masking import SecretMasker
from openhands.sdk.security.approval_rules import AllowRule
from openhands.sdk.testing import TestLLM
from openhands.sdk.utils.frontmatter import split_front_matter

REPEATS = 3

SKILL = """---
name: pdf-tools
description: Read, split and merge PDF files; use it when the user mentions PDFs.
license: MIT
allowed-tools: [terminal, file_editor]
metadata:
  author: team
  version: "1.2"
  tags: [pdf, documents, files]
---
# PDF tools

Use `qpdf` to split and merge.
"""


def _best(run: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def _approval_rules(count: int) -> float:
    rules = [AllowRule(tool="terminal", command_prefix=f"tool{n}") for n in range(count)]
    with tempfile.TemporaryDirectory() as folder:
        conversation = LocalConversation(
            Agent(llm=TestLLM.from_messages([])),
            str(Path(folder) / "work"),
            persistence_dir=str(Path(folder) / "conversations"),
        )
        orders = [list(reversed(rules)), rules]

        def replace() -> None:
            orders.reverse()  # a different order each time: every call writes
            conversation.set_approval_rules(orders[0])

        try:
            return _best(replace)
        finally:
            conversation.close()


def main() -> None:
    rng = random.Random(1)
    secrets = ["".join(rng.choices(string.ascii_letters + string.digits, k=40)) for _ in range(10)]
    output = "".join(rng.choices(string.printable, k=200_000))
    start = time.perf_counter()
    masker = SecretMasker(secrets)
    masker.mask(output, "<secret-hidden>")
    first = time.perf_counter() - start
    result = {
        "approval_rules_500_ms": round(_approval_rules(500) * 1000, 1),
        "approval_rules_5000_ms": round(_approval_rules(5000) * 1000, 1),
        "mask_first_call_ms": round(first * 1000, 1),
        "mask_200k_ms": round(_best(lambda: masker.mask(output, "<secret-hidden>")) * 1000, 1),
        "front_matter_us": round(_best(lambda: split_front_matter(SKILL, source="b")) * 1e6, 1),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
