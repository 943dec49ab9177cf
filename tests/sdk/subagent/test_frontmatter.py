"""The front matter reader: the YAML subset agent files use, read as PyYAML reads it."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk.subagent.frontmatter import (
    FrontMatterError,
    parse_front_matter,
    split_front_matter,
)

BUILTIN_AGENTS = Path(__file__).parents[3] / "openhands-tools/openhands/tools/preset/subagents"

DOCUMENTS = [
    # scalars of every kind
    "a: plain text\nb: 'it''s'\nc: \"tab\\tquote\\\"\"\nd: 42\ne: -1.5\nf: 1e3\ng: ~\n"
    "h: null\ni: yes\nj: Off\nk: TRUE\nl: http://x.y/z#frag\nm: text # comment\nn:\n",
    # block scalars with each chomping mode
    "a: >\n  one\n  two\n\n\n  three\nb: |-\n  x\n\n  y\nc: |+\n  keep\n\n\nd: |\n  l1\n    l2\n",
    # nested mappings, block and flow collections, `- key:` items, `- - x` items
    "tools:\n  - terminal\n  - file_editor\nseq_same_indent:\n- a\n- b\n"
    'mcp:\n  fetch:\n    command: uvx\n    args: ["--with", \'mcp==1\', 3]\n    env: {K: "${K}"}\n'
    'hooks:\n  stop:\n    - matcher: "*"\n      hooks:\n        - command: echo hi\n'
    "          timeout: 3\n    - matcher: x\nnested:\n  -\n    - n1\n  - - n2\nempty_list: []\n",
    # comments and blank lines between keys
    "# leading comment\nname: x\n\n  # indented comment\ndescription: >-\n  a\n  b\n",
]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_documents_read_as_pyyaml_reads_them(document: str) -> None:
    yaml = pytest.importorskip("yaml")
    assert parse_front_matter(document) == (yaml.safe_load(document) or {})


@pytest.mark.parametrize("path", sorted(BUILTIN_AGENTS.glob("*.md")), ids=lambda p: p.name)
def test_builtin_agent_files_read_as_pyyaml_reads_them(path: Path) -> None:
    yaml = pytest.importorskip("yaml")
    text = path.read_text(encoding="utf-8")
    front, body = split_front_matter(text, source=str(path))
    header = text.split("---\n")[1]
    assert front == yaml.safe_load(header)
    assert body.strip() and not body.lstrip().startswith("---")


def test_text_without_front_matter_is_all_body() -> None:
    assert split_front_matter("# Title\n\nbody\n") == ({}, "# Title\n\nbody\n")


def test_front_matter_and_body_are_split_at_the_closing_line() -> None:
    front, body = split_front_matter("---\nname: x\n---\n\nYou are x.\n")
    assert front == {"name": "x"}
    assert body == "\nYou are x.\n"


def test_empty_front_matter_is_an_empty_mapping() -> None:
    assert split_front_matter("---\n---\nbody") == ({}, "body")


@pytest.mark.parametrize(
    ("document", "names"),
    [
        ("a: 1\n\tb: 2\n", "line 2: indent with spaces"),
        ("a: &anchor x\n", "line 1: anchors, aliases and tags"),
        ("a: *alias\n", "line 1: anchors, aliases and tags"),
        ("a: !!str 3\n", "line 1: anchors, aliases and tags"),
        ("a: 1\na: 2\n", "line 2: duplicate key 'a'"),
        ("a: 1\n   b: 2\n", "line 2: unexpected indentation"),
        ("a: [1, [2]]\n", "line 1: nested flow collections"),
        ('a: "open\n', "line 1: unterminated or multi-line quoted value"),
        ("? complex\n", "line 1: complex keys"),
        ("just text\n", "line 1: expected `key: value`"),
        ("- a\n", "must be a mapping"),
    ],
)
def test_unsupported_syntax_is_refused_naming_the_line(document: str, names: str) -> None:
    with pytest.raises(FrontMatterError, match=names):
        parse_front_matter(document, source="agent.md")


def test_line_numbers_count_from_the_file_start() -> None:
    with pytest.raises(FrontMatterError, match=r"agent.md, line 3: duplicate key"):
        split_front_matter("---\nname: a\nname: b\n---\n", source="agent.md")


def test_unclosed_front_matter_is_refused() -> None:
    with pytest.raises(FrontMatterError, match="never closed"):
        split_front_matter("---\nname: a\n", source="agent.md")


def test_front_matter_error_is_a_value_error() -> None:
    assert issubclass(FrontMatterError, ValueError)
