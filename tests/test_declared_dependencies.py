"""Every third-party package a member imports is declared in that member's pyproject.toml,
and a member imports only the members below it.

A package that only arrives through another one's dependencies (jinja2 through litellm, say)
disappears the day that other package drops it. Every import counts: at module level, under
`TYPE_CHECKING` and inside functions. Import names map to distributions through the installed
metadata (`yaml` -> PyYAML); the workspace's own packages map by their folder.

The members stand in layers (`MEMBER_ORDER`: sdk <- tools <- agent-server, as
docs/architecture.md draws them): a member importing one that is not below it breaks the
layers, and declaring that dependency would only make the loop official, so the test says so
instead of asking for the dependency.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest
from import_graph import parsed

ROOT = Path(__file__).resolve().parent.parent
MEMBERS = {
    "openhands-sdk": "openhands/sdk",
    "openhands-tools": "openhands/tools",
    "openhands-agent-server": "openhands/agent_server",
}
MEMBER_ORDER = ["openhands-sdk", "openhands-tools", "openhands-agent-server"]
"""The members, lowest first: each may import only those before it."""
FIRST_PARTY = {"openhands." + Path(sub).name: member for member, sub in MEMBERS.items()}
"""`openhands.sdk` -> openhands-sdk: the namespace `openhands` is shared, so go one level down."""


def normalize(name: str) -> str:
    """A distribution name as PEP 503 compares it (PyYAML == pyyaml, pydantic_core == pydantic-core)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(pyproject: Path) -> set[str]:
    """The distributions a pyproject depends on, optional extras included."""
    project = tomllib.loads(pyproject.read_text())["project"]
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements.extend(extra)
    return {normalize(re.match(r"[A-Za-z0-9._-]+", r).group()) for r in requirements}  # type: ignore[union-attr]


def imported_modules(source_root: Path) -> dict[str, set[str]]:
    """Absolute imports under `source_root`: module name -> the files importing it."""
    found: dict[str, set[str]] = {}
    for path in sorted(source_root.rglob("*.py")):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name, set()).add(str(path.relative_to(source_root.parent)))
    return found


def undeclared(source_root: Path, member: str, pyproject: Path) -> dict[str, list[str]]:
    """Distributions imported under `source_root` but not declared: distribution -> files."""
    distributions = importlib.metadata.packages_distributions()
    allowed = declared(pyproject) | {member}
    missing: dict[str, list[str]] = {}
    for module, files in imported_modules(source_root).items():
        top = module.split(".")[0]
        if top in sys.stdlib_module_names or top == "__future__":
            continue
        if top == "openhands":
            owner = FIRST_PARTY.get(".".join(module.split(".")[:2]))
            owners = [owner] if owner else [f"unknown openhands package {module}"]
        else:
            owners = distributions.get(top) or [f"not installed: {top}"]
        if not any(normalize(owner) in allowed for owner in owners):
            missing.setdefault(owners[0], []).extend(sorted(files))
    return missing


def members_above(member: str, imported: dict[str, list[str]]) -> dict[str, list[str]]:
    """The members among `imported` that do not stand below `member` (itself excluded)."""
    below = MEMBER_ORDER[: MEMBER_ORDER.index(member)]
    return {
        dist: files
        for dist, files in imported.items()
        if dist in MEMBER_ORDER and dist not in below and dist != member
    }


def imported_members(source_root: Path, member: str) -> dict[str, list[str]]:
    """The workspace members `source_root` imports: member -> files."""
    found: dict[str, list[str]] = {}
    for module, files in imported_modules(source_root).items():
        owner = FIRST_PARTY.get(".".join(module.split(".")[:2]))
        if owner is not None and owner != member:
            found.setdefault(owner, []).extend(sorted(files))
    return found


def layer_message(member: str, above: dict[str, list[str]]) -> str:
    """What to do about `member` importing members that stand above it."""
    order = " <- ".join(MEMBER_ORDER)
    return (
        f"{member} imports {sorted(above)}, which do not stand below it (the members' "
        f"layers: {order}; docs/architecture.md). Do not declare the dependency: move the "
        f"code that needs it up into that member, or what it needs down into {member} or "
        f"below. Files: {above}"
    )


@pytest.mark.parametrize("member", sorted(MEMBERS))
def test_a_member_imports_only_the_members_below_it(member: str) -> None:
    above = members_above(member, imported_members(ROOT / member / MEMBERS[member], member))
    assert not above, layer_message(member, above)


@pytest.mark.parametrize("member", sorted(MEMBERS))
def test_every_imported_package_is_declared_by_the_member_that_imports_it(member: str) -> None:
    missing = undeclared(ROOT / member / MEMBERS[member], member, ROOT / member / "pyproject.toml")
    # A member above is the layer test's to report: declaring it is not the fix.
    for dist in members_above(member, missing):
        del missing[dist]
    assert not missing, (
        f"{member} imports packages its pyproject.toml does not declare; add each with "
        f"`uv add --package {member} <dist>`: {missing}"
    )


def test_an_import_that_only_arrives_through_another_package_is_reported(tmp_path: Path) -> None:
    # jinja2 is installed (litellm brings it) but this member declares only pydantic.
    source = tmp_path / "pkg"
    source.mkdir()
    (source / "render.py").write_text(
        "from typing import TYPE_CHECKING\nimport pydantic\nif TYPE_CHECKING:\n    import jinja2\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\ndependencies = ["pydantic>=2"]\n'
    )

    missing = undeclared(source, "demo", tmp_path / "pyproject.toml")

    assert list(missing) == ["Jinja2"]


def test_a_member_importing_one_above_it_is_told_about_the_layers(tmp_path: Path) -> None:
    source = tmp_path / "tools"
    source.mkdir()
    (source / "route.py").write_text(
        "def mount():\n    from openhands.agent_server.api import ROUTERS\n"
        "from openhands.sdk import Agent\n"
    )

    above = members_above("openhands-tools", imported_members(source, "openhands-tools"))

    assert list(above) == ["openhands-agent-server"]
    message = layer_message("openhands-tools", above)
    assert "Do not declare the dependency" in message and "uv add" not in message
    assert "openhands-sdk <- openhands-tools <- openhands-agent-server" in message
