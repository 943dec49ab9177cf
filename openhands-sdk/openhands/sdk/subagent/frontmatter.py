"""Front matter of Markdown agent files: a small YAML subset, read without PyYAML.

PyYAML is not a declared dependency of the SDK (it only arrives through litellm), so the
front matter is parsed here. Supported, which is what agent files use: `key: value`
mappings nested by indentation; block sequences (`- item`, also `- key: value` items);
flow sequences and mappings of scalars (`[a, "b"]`, `{K: v}`); literal and folded block
scalars (`|`, `>`, with `-`/`+` chomping); plain, 'single' and "double" quoted scalars;
`# comments`; YAML 1.1 booleans (true/false/yes/no/on/off), null (`null`, `~`, empty),
integers and floats. Anything else (anchors, aliases, tags, multi-line quoted scalars,
nested flow collections, complex keys) is refused with a `FrontMatterError` naming the line.
"""

from __future__ import annotations

import json
import re
from typing import Any

from openhands.sdk.errors import OpenHandsError

__all__ = ["FrontMatterError", "parse_front_matter", "split_front_matter"]


class FrontMatterError(OpenHandsError, ValueError):
    """A front matter block is not in the YAML subset agent files may use."""


_DELIMITERS = ("---",)
_END_DELIMITERS = ("---", "...")
_TRUE = {"true", "yes", "on"}
_FALSE = {"false", "no", "off"}
_NULL = {"null", "~", ""}
_INT = re.compile(r"[-+]?\d+")
_FLOAT = re.compile(r"[-+]?(\d+\.\d*|\.\d+)([eE][-+]\d+)?")
"""YAML 1.1 floats, as PyYAML reads them: a dot is required (`1e3` is a string)."""
_UNSUPPORTED_START = set("&*!%@`")


def split_front_matter(text: str, *, source: str = "<text>") -> tuple[dict[str, Any], str]:
    """`(metadata, body)` of a Markdown text; a text without a leading `---` block has none."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].rstrip() not in _DELIMITERS:
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].rstrip() in _END_DELIMITERS:
            header = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :])
            return parse_front_matter(header, source=source, first_line=2), body
    raise FrontMatterError(f"{source}: the front matter opened on line 1 is never closed by ---")


def parse_front_matter(text: str, *, source: str = "<text>", first_line: int = 1) -> dict[str, Any]:
    """The mapping a front matter block describes (empty text: an empty mapping)."""
    parsed = _Parser(text, source, first_line).parse()
    if parsed is None:
        return {}
    if not isinstance(parsed, dict):
        raise FrontMatterError(f"{source}: the front matter must be a mapping of keys to values")
    return parsed


class _Parser:
    """Recursive descent over lines; indentation decides nesting."""

    def __init__(self, text: str, source: str, first_line: int) -> None:
        self.lines = text.replace("\r\n", "\n").split("\n")
        self.source = source
        self.first_line = first_line
        self.pos = 0

    # -- helpers ------------------------------------------------------------------------------

    def error(self, index: int, message: str) -> FrontMatterError:
        return FrontMatterError(f"{self.source}, line {index + self.first_line}: {message}")

    def significant(self) -> int | None:
        """The index of the next line that is neither blank nor a comment, from `pos`."""
        index = self.pos
        while index < len(self.lines):
            line = self.lines[index]
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                if "\t" in line[: len(line) - len(line.lstrip())]:
                    raise self.error(index, "indent with spaces, not tabs")
                return index
            index += 1
        return None

    def indent(self, index: int) -> int:
        line = self.lines[index]
        return len(line) - len(line.lstrip(" "))

    def content(self, index: int) -> str:
        return self.lines[index].strip()

    @staticmethod
    def is_item(text: str) -> bool:
        return text == "-" or text.startswith("- ")

    # -- structure ----------------------------------------------------------------------------

    def parse(self) -> Any:
        index = self.significant()
        if index is None:
            return None
        if self.indent(index) != 0:
            raise self.error(index, "the first key must not be indented")
        value = self.node(0)
        rest = self.significant()
        if rest is not None:
            raise self.error(rest, "unexpected indentation")
        return value

    def node(self, indent: int) -> Any:
        index = self.significant()
        if index is None or self.indent(index) < indent:
            return None
        if self.is_item(self.content(index)):
            return self.sequence(self.indent(index))
        return self.mapping(self.indent(index))

    def mapping(self, indent: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        while (index := self.significant()) is not None:
            level = self.indent(index)
            if level < indent:
                break
            if level > indent:
                raise self.error(index, "unexpected indentation")
            text = self.content(index)
            if self.is_item(text):
                raise self.error(index, "a list item where a key was expected")
            split = self.split_key(text, index)
            if split is None:
                raise self.error(index, f"expected `key: value`, got {text!r}")
            key, rest = split
            if key in result:
                raise self.error(index, f"duplicate key {key!r}")
            self.pos = index + 1
            result[key] = self.value(rest, indent, index)
        return result

    def sequence(self, indent: int) -> list[Any]:
        items: list[Any] = []
        while (index := self.significant()) is not None:
            level = self.indent(index)
            if level < indent:
                break
            text = self.content(index)
            if level > indent or not self.is_item(text):
                if level == indent:
                    break  # a key at the parent mapping's level ends a `key:\n- a` list
                raise self.error(index, "unexpected indentation")
            after = text[1:].lstrip(" ")
            self.pos = index + 1
            inner_indent = indent + len(text) - len(after)
            if not after:
                items.append(self.node(indent + 1))
            elif self.is_item(after):
                # `- - a` opens a list inside the list, lined up with the inner dash.
                self.lines[index] = " " * inner_indent + after
                self.pos = index
                items.append(self.sequence(inner_indent))
            elif self.split_key(after, index) is not None and after[0] not in "[{":
                # `- key: value` opens a mapping whose keys line up with `key`.
                self.lines[index] = " " * inner_indent + after
                self.pos = index
                items.append(self.mapping(inner_indent))
            else:
                items.append(self.value(after, indent, index))
        return items

    def value(self, rest: str, indent: int, index: int) -> Any:
        rest = _strip_comment(rest)
        if not rest:
            following = self.significant()
            if following is None:
                return None
            level = self.indent(following)
            if level > indent:
                return self.node(level)
            if level == indent and self.is_item(self.content(following)):
                return self.sequence(level)
            return None
        if rest[0] in "|>":
            return self.block_scalar(rest, indent, index)
        if rest[0] == "[":
            return [self.scalar(item, index) for item in self.flow_items(rest, "[]", index)]
        if rest[0] == "{":
            mapping: dict[str, Any] = {}
            for item in self.flow_items(rest, "{}", index):
                split = self.split_key(item, index)
                if split is None:
                    raise self.error(index, f"expected `key: value` in {rest!r}")
                mapping[split[0]] = self.scalar(split[1], index)
            return mapping
        return self.scalar(rest, index)

    def block_scalar(self, header: str, indent: int, index: int) -> str:
        style, chomp = header[0], header[1:].strip()
        if chomp not in ("", "-", "+"):
            raise self.error(index, f"unsupported block scalar header {header!r}")
        body: list[str] = []
        block_indent: int | None = None
        cursor = self.pos
        while cursor < len(self.lines):
            line = self.lines[cursor]
            if line.strip():
                level = len(line) - len(line.lstrip(" "))
                if level <= indent:
                    break
                if block_indent is None:
                    block_indent = level
                if level < block_indent:
                    break
                body.append(line[block_indent:])
            else:
                body.append("")
            cursor += 1
        self.pos = cursor
        trailing = 0
        while body and not body[-1]:
            body.pop()
            trailing += 1
        text = "\n".join(body) if style == "|" else _fold(body)
        if chomp == "-" or not text:
            return text
        return text + "\n" * (1 + trailing if chomp == "+" else 1)

    def split_key(self, text: str, index: int) -> tuple[str, str] | None:
        """`(key, rest)` when `text` starts a `key: value` entry, else None."""
        if text[0] in "\"'":
            closing = _closing_quote(text)
            if closing is None:
                return None
            after = text[closing + 1 :]
            if after.startswith(":") and (len(after) == 1 or after[1] == " "):
                return str(self.scalar(text[: closing + 1], index)), after[1:].strip()
            return None
        if text.startswith("? "):
            raise self.error(index, "complex keys (`? `) are not supported")
        match = re.search(r":(\s|$)", text)
        if match is None or text[0] in "[{#":
            return None
        key = text[: match.start()].strip()
        if not key:
            return None
        return key, text[match.end() :].strip()

    def flow_items(self, text: str, brackets: str, index: int) -> list[str]:
        opening, closing = brackets
        if not text.endswith(closing):
            raise self.error(index, f"a {opening}...{closing} collection must end on its line")
        inner = text[1:-1]
        items: list[str] = []
        current = ""
        quote: str | None = None
        for char in inner:
            if quote:
                current += char
                if char == quote:
                    quote = None
            elif char in "\"'":
                quote = char
                current += char
            elif char in "[]{}":
                raise self.error(index, "nested flow collections are not supported")
            elif char == ",":
                items.append(current.strip())
                current = ""
            else:
                current += char
        if current.strip():
            items.append(current.strip())
        return items

    def scalar(self, text: str, index: int) -> Any:
        text = text.strip()
        if not text:
            return None
        if text[0] == '"':
            if _closing_quote(text) != len(text) - 1:
                raise self.error(index, f"unterminated or multi-line quoted value {text!r}")
            try:
                return json.loads(text)
            except json.JSONDecodeError as exc:
                raise self.error(index, f"bad escape in {text!r}: {exc.msg}") from None
        if text[0] == "'":
            if _closing_quote(text) != len(text) - 1:
                raise self.error(index, f"unterminated or multi-line quoted value {text!r}")
            return text[1:-1].replace("''", "'")
        if text[0] in _UNSUPPORTED_START:
            raise self.error(index, f"anchors, aliases and tags are not supported: {text!r}")
        lowered = text.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        if lowered in _NULL:
            return None
        if _INT.fullmatch(text):
            return int(text)
        if _FLOAT.fullmatch(text):
            return float(text)
        return text


def _closing_quote(text: str) -> int | None:
    """The index of the quote that closes the quoted scalar `text` starts with."""
    quote = text[0]
    position = 1
    while position < len(text):
        char = text[position]
        if quote == '"' and char == "\\":
            position += 2
            continue
        if char == quote:
            if quote == "'" and text[position + 1 : position + 2] == "'":
                position += 2  # '' is an escaped quote
                continue
            return position
        position += 1
    return None


def _strip_comment(text: str) -> str:
    """`text` without a trailing ` # comment` (outside quotes)."""
    quote: str | None = None
    for position, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'" and (position == 0 or text[position - 1] in " [{,:"):
            quote = char
        elif char == "#" and (position == 0 or text[position - 1] == " "):
            return text[:position].rstrip()
    return text.strip()


def _fold(lines: list[str]) -> str:
    """Folded (`>`) block: lines join with spaces; a blank line is a newline."""
    paragraphs: list[str] = []
    current: list[str] = []
    blank_run = 0
    for line in lines:
        if line.strip():
            if current and blank_run == 0 and not line.startswith(" "):
                current.append(line)
            else:
                if current:
                    paragraphs.append(" ".join(current))
                    paragraphs.extend([""] * max(blank_run - 1, 0))
                current = [line]
            blank_run = 0
        else:
            blank_run += 1
    if current:
        paragraphs.append(" ".join(current))
    return "\n".join(paragraphs)
