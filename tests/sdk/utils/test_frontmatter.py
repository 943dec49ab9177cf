"""The one front matter reader (PyYAML) used by skills, sub-agents and plugin commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk.errors import InvalidSettingError
from openhands.sdk.utils.frontmatter import (
    FrontMatterError,
    parse_front_matter,
    split_front_matter,
)

BUILTIN_AGENTS = Path(__file__).parents[3] / "openhands-tools/openhands/tools/preset/subagents"


def test_full_yaml_is_read_nested_collections_and_block_scalars() -> None:
    document = (
        "name: x\n"
        "description: >\n  folded\n  text\n"
        "tools: [terminal, 'file_editor']\n"
        "mcp:\n  fetch:\n    command: uvx\n    args: [--with, 3]\n"
        "on: yes\n"
    )
    assert parse_front_matter(document) == {
        "name": "x",
        "description": "folded text\n",
        "tools": ["terminal", "file_editor"],
        "mcp": {"fetch": {"command": "uvx", "args": ["--with", 3]}},
        "True": True,  # YAML 1.1: a bare `on` key is the boolean true
    }


@pytest.mark.parametrize(
    ("document", "line", "what"),
    [
        ("a: &x 1\nb: 2\n", 2, "anchors (&x)"),
        ("a:\n  <<: *x\n", 3, "aliases (*x)"),
        ("a: [1]\nb: *nowhere\n", 3, "aliases (*nowhere)"),
    ],
)
def test_anchors_and_aliases_are_refused_naming_the_file_and_line(
    document: str, line: int, what: str
) -> None:
    with pytest.raises(FrontMatterError) as refused:
        split_front_matter(f"---\n{document}---\nbody", source="skills/x/SKILL.md")
    message = str(refused.value)
    assert message.startswith(f"skills/x/SKILL.md, line {line}: YAML {what} are not allowed")


def test_an_alias_bomb_is_refused_before_anything_is_built() -> None:
    levels = ["  l0: &l0 [" + ", ".join(['"lol"'] * 9) + "]"]
    levels += [f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 12)]
    document = "---\nname: bomb\nmetadata:\n" + "\n".join(levels) + "\n---\n"
    # 9**12 strings if it were built: the refusal comes from the first anchor.
    with pytest.raises(FrontMatterError, match="line 4: YAML anchors"):
        split_front_matter(document, source="bomb.md")


def test_a_block_over_the_size_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OH_FRONT_MATTER_MAX_BYTES", "100")
    assert split_front_matter("---\na: " + "x" * 90 + "\n---\n")[0] == {"a": "x" * 90}
    with pytest.raises(FrontMatterError, match=r"f\.md: the front matter is 103 bytes, more "):
        split_front_matter("---\na: " + "é" * 50 + "\n---\n", source="f.md")


def test_a_key_or_value_over_the_length_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OH_FRONT_MATTER_MAX_VALUE_CHARS", "10")
    assert parse_front_matter("a: 0123456789\n") == {"a": "0123456789"}
    with pytest.raises(FrontMatterError, match="line 2: a value of 11 characters"):
        parse_front_matter("a: 1\nb: [x, 01234567890]\n", source="f.md")
    with pytest.raises(FrontMatterError, match="line 1: a value of 11 characters"):
        parse_front_matter("abcdefghijk: 1\n", source="f.md")


def test_deep_nesting_is_refused_instead_of_crashing_the_interpreter() -> None:
    # 30,000 nested brackets (60 KB) made PyYAML's builder overflow the C stack: a segfault.
    deep = "a: " + "[" * 30000 + "]" * 30000 + "\n"
    with pytest.raises(FrontMatterError, match="nested more than 32 deep"):
        parse_front_matter(deep, source="f.md")
    assert parse_front_matter("a: " + "[" * 31 + "]" * 31 + "\n")["a"] is not None


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("OH_FRONT_MATTER_MAX_BYTES", "lots"),
        ("OH_FRONT_MATTER_MAX_VALUE_CHARS", "0"),
        ("OH_FRONT_MATTER_MAX_DEPTH", "5000"),
    ],
)
def test_a_bad_limit_setting_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(InvalidSettingError, match=name):
        parse_front_matter("a: 1\n")


def test_text_without_front_matter_is_all_body() -> None:
    assert split_front_matter("# Title\n\nbody\n") == ({}, "# Title\n\nbody\n")


def test_front_matter_and_body_are_split_at_the_closing_line() -> None:
    front, body = split_front_matter("---\nname: x\n---\n\nYou are x.\n")
    assert front == {"name": "x"}
    assert body == "\nYou are x.\n"


def test_a_byte_order_mark_and_crlf_line_ends_are_accepted() -> None:
    front, body = split_front_matter("\ufeff---\r\nname: x\r\n---\r\nbody\r\n")
    assert front == {"name": "x"}
    assert body == "body\r\n"


def test_empty_front_matter_is_an_empty_mapping() -> None:
    assert split_front_matter("---\n---\nbody") == ({}, "body")


def test_a_duplicate_key_is_refused_naming_the_file_line() -> None:
    with pytest.raises(FrontMatterError, match=r"agent.md, line 3: duplicate key 'name'"):
        split_front_matter("---\nname: a\nname: b\n---\n", source="agent.md")


def test_a_duplicate_nested_key_is_refused_too() -> None:
    with pytest.raises(FrontMatterError, match=r"line 4: duplicate key 'a'"):
        split_front_matter("---\nx:\n  a: 1\n  a: 2\n---\n", source="f.md")


def test_invalid_yaml_names_the_file_and_line() -> None:
    with pytest.raises(FrontMatterError, match=r"skill.md, line 4: .* starts on line 3"):
        split_front_matter("---\nname: ok\nbad: [1, 2\n---\nbody", source="skill.md")


def test_a_list_is_not_a_front_matter() -> None:
    with pytest.raises(FrontMatterError, match="must be a mapping"):
        parse_front_matter("- a\n", source="agent.md")


def test_unclosed_front_matter_is_refused() -> None:
    with pytest.raises(FrontMatterError, match="never closed"):
        split_front_matter("---\nname: a\n", source="agent.md")


def test_python_objects_are_never_built() -> None:
    with pytest.raises(FrontMatterError, match=r"agent\.md"):
        parse_front_matter("a: !!python/object/apply:os.system ['true']\n", source="agent.md")


def test_front_matter_error_is_a_value_error() -> None:
    assert issubclass(FrontMatterError, ValueError)


@pytest.mark.parametrize("path", sorted(BUILTIN_AGENTS.glob("*.md")), ids=lambda p: p.name)
def test_builtin_agent_files_have_a_name_and_a_body(path: Path) -> None:
    front, body = split_front_matter(path.read_text(encoding="utf-8"), source=str(path))
    assert isinstance(front.get("name"), str) and front["name"]
    assert body.strip() and not body.lstrip().startswith("---")
