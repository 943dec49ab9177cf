"""Every third-party package a member imports is declared in that member's pyproject.toml.

A package that only arrives through another one's dependencies (jinja2 through litellm, say)
disappears the day that other package drops it. Every import counts: at module level, under
`TYPE_CHECKING` and inside functions. Import names map to distributions through the installed
metadata (`yaml` -> PyYAML); the workspace's own packages map by their folder.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MEMBERS = {
    "openhands-sdk": "openhands/sdk",
    "openhands-tools": "openhands/tools",
    "openhands-agent-server": "openhands/agent_server",
}
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
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
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


@pytest.mark.parametrize("member", sorted(MEMBERS))
def test_every_imported_package_is_declared_by_the_member_that_imports_it(member: str) -> None:
    missing = undeclared(ROOT / member / MEMBERS[member], member, ROOT / member / "pyproject.toml")
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
