"""The reference server's operations, compared with this server's: their OpenAPI descriptions
are diffed (the latest reference release's, read from its server once per kept venv: see the
`latest_reference_openapi` fixture; this server's, from a live one).

Every reference operation must exist here, or be in an area left out on purpose, or be
listed with its reason under "Reference operations not built" in docs/compatibility.md; an
operation listed there that now exists here fails too, so the list cannot drift.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from interop_env import ServerProcess
from waits import EVENT_WAIT

pytestmark = pytest.mark.timeout(900)

COMPATIBILITY = Path(__file__).parents[2] / "docs" / "compatibility.md"
SECTION = "### Reference operations not built"
METHODS = ("get", "post", "put", "patch", "delete")
OPERATION = re.compile(r"`(GET|POST|PUT|PATCH|DELETE) (/[^`]*)`")

LEFT_OUT = {
    "the IDE (VS Code)": re.compile(r"/vscode(/|$)"),
    "canvas extensions": re.compile(r"^/(api/canvas-extensions|app-backends)/"),
    "vendor subscription log-ins": re.compile(r"^/api/llm/subscription/"),
    "ACP agents": re.compile(r"^/api/acp/|/switch_acp_model$"),
}
"""Areas of the reference left out on purpose (docs/compatibility.md says why)."""


def _operations(spec: dict[str, Any]) -> set[str]:
    return {
        f"{method.upper()} {_shape(path)}"
        for path, item in spec["paths"].items()
        for method in item
        if method in METHODS
    }


def _shape(path: str) -> str:
    """The path with its parameter names left out (`/{conversation_id}` -> `/{}`)."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def _listed() -> set[str]:
    text = COMPATIBILITY.read_text()
    assert SECTION in text, f"{COMPATIBILITY} has no {SECTION!r} section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    return {f"{m} {_shape(p)}" for m, p in OPERATION.findall(section)}


def _left_out(operation: str) -> bool:
    path = operation.split(" ", 1)[1]
    return any(pattern.search(path) for pattern in LEFT_OUT.values())


@pytest.fixture(scope="module")
def compared(
    latest_reference_openapi: dict[str, Any], our_server: ServerProcess
) -> tuple[set[str], set[str]]:
    ours = httpx.get(f"{our_server.url}/openapi.json", timeout=EVENT_WAIT).json()
    return _operations(latest_reference_openapi), _operations(ours)


def test_every_reference_operation_is_here_or_listed_with_its_reason(
    compared: tuple[set[str], set[str]],
) -> None:
    reference, ours = compared
    missing = {op for op in reference - ours if not _left_out(op)}

    unlisted = sorted(missing - _listed())

    assert unlisted == [], (
        "reference operations missing here and not listed under "
        f"{SECTION!r} in docs/compatibility.md: {unlisted}"
    )


def test_the_list_names_only_operations_still_missing(
    compared: tuple[set[str], set[str]],
) -> None:
    reference, ours = compared
    listed = _listed()

    built = sorted(listed & ours)
    unknown = sorted(listed - reference)

    assert built == [], f"listed as not built in docs/compatibility.md, but here: {built}"
    assert unknown == [], (
        f"listed in docs/compatibility.md, but not a reference operation: {unknown}"
    )
