"""Front matter of Markdown files (skills, sub-agents, plugin commands), read with PyYAML.

The one reader of `---`-delimited YAML headers in this SDK: a document that starts with a
`---` line has a YAML mapping up to the next `---` (or `...`) line, then its body. YAML is
read safely (no Python objects) with libyaml when PyYAML has it. A key given twice is refused
(YAML would silently keep the last one), and every error names the file and the line.

Skills and plugins come from anywhere (a cloned repository, a `plugins` entry of a request),
so a front matter is read as hostile input: anchors and aliases (`&a`, `*a`, `<<: *a`) are
refused, since a few hundred bytes of nested aliases expand to gigabytes ("billion laughs");
a block larger than `OH_FRONT_MATTER_MAX_BYTES` (64 KiB), holding a key or value longer
than `OH_FRONT_MATTER_MAX_VALUE_CHARS` (16,384 characters) or nesting lists and mappings
deeper than `OH_FRONT_MATTER_MAX_DEPTH` (32; 30,000 nested brackets crash the interpreter
while the document is built) is refused before it is built.
"""

from __future__ import annotations

import os
from typing import Any

from openhands.sdk.errors import InvalidSettingError, OpenHandsError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_VALUE_CHARS",
    "MAX_BYTES_ENV",
    "MAX_DEPTH_ENV",
    "MAX_VALUE_CHARS_ENV",
    "FrontMatterError",
    "parse_front_matter",
    "split_front_matter",
]

_OPEN = "---"
_CLOSE = ("---", "...")

MAX_BYTES_ENV = "OH_FRONT_MATTER_MAX_BYTES"
DEFAULT_MAX_BYTES = 65536
"""Largest front matter block read (UTF-8 bytes, the `---` lines excluded)."""

MAX_VALUE_CHARS_ENV = "OH_FRONT_MATTER_MAX_VALUE_CHARS"
DEFAULT_MAX_VALUE_CHARS = 16384
"""Longest key or value (one YAML scalar, in characters) a front matter may hold."""

MAX_DEPTH_ENV = "OH_FRONT_MATTER_MAX_DEPTH"
DEFAULT_MAX_DEPTH = 32
"""Deepest nesting of lists and mappings (the top mapping is 1)."""
_DEPTH_CEILING = 1000
"""A depth the setting may not pass: building far deeper documents overflows the C stack."""


class FrontMatterError(OpenHandsError, ValueError):
    """A front matter block is not a valid YAML mapping, uses anchors or aliases, or is too
    large; the message names the file, the line and what to change."""


def _limit(name: str, default: int, ceiling: int | None = None) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidSettingError(f"{name} must be a whole number >= 1, got {raw!r}") from None
    if value < 1 or (ceiling is not None and value > ceiling):
        most = f" and <= {ceiling}" if ceiling is not None else ""
        raise InvalidSettingError(f"{name} must be >= 1{most}, got {value}")
    return value


def max_bytes() -> int:
    """The size limit of one front matter block (`OH_FRONT_MATTER_MAX_BYTES`)."""
    return _limit(MAX_BYTES_ENV, DEFAULT_MAX_BYTES)


def max_value_chars() -> int:
    """The length limit of one key or value (`OH_FRONT_MATTER_MAX_VALUE_CHARS`)."""
    return _limit(MAX_VALUE_CHARS_ENV, DEFAULT_MAX_VALUE_CHARS)


def max_depth() -> int:
    """The nesting limit of lists and mappings (`OH_FRONT_MATTER_MAX_DEPTH`, at most 1000)."""
    return _limit(MAX_DEPTH_ENV, DEFAULT_MAX_DEPTH, _DEPTH_CEILING)


def split_front_matter(text: str, *, source: str = "<text>") -> tuple[dict[str, Any], str]:
    """`(metadata, body)` of a Markdown text; a text without a leading `---` line has none."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if lines[0].rstrip("\r").rstrip() != _OPEN:
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r").rstrip() in _CLOSE:
            header = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :])
            return parse_front_matter(header, source=source, first_line=2), body
    raise FrontMatterError(f"{source}: the front matter opened on line 1 is never closed by ---")


def parse_front_matter(text: str, *, source: str = "<text>", first_line: int = 1) -> dict[str, Any]:
    """The mapping a front matter block describes (an empty block: an empty mapping).

    `first_line` is the file line the block starts on, so errors name the file's line.
    Raises `FrontMatterError` for invalid YAML, anchors or aliases, and a block or value over
    its limit (see the module docstring).
    """
    import yaml  # only when a front matter is read (import cost)

    size = len(text.encode("utf-8", errors="surrogatepass"))
    limit = max_bytes()
    if size > limit:
        raise FrontMatterError(
            f"{source}: the front matter is {size} bytes, more than {MAX_BYTES_ENV} "
            f"({limit}); keep it short (long text belongs in the body) or raise the limit"
        )
    try:
        _check_events(text, source, first_line)
        data = yaml.load(text, Loader=_loader_class())  # a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        where = _line(exc.problem_mark, first_line)
        reason = exc.problem or "invalid YAML"
        if exc.context and exc.context_mark is not None:
            reason += f" ({exc.context} that starts on line {exc.context_mark.line + first_line})"
        raise FrontMatterError(f"{source}{where}: {reason}") from None
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"{source}: invalid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontMatterError(
            f"{source}: the front matter must be a mapping of keys to values (`key: value` "
            f"lines), not a {type(data).__name__}"
        )
    return {str(key): value for key, value in data.items()}


def _check_events(text: str, source: str, first_line: int) -> None:
    """Refuse anchors, aliases, over-long scalars and deep nesting while only parsing
    (nothing is built yet, so an alias bomb costs no more than its own bytes)."""
    import yaml

    longest, deepest = max_value_chars(), max_depth()
    depth = 0
    for event in yaml.parse(text, Loader=_loader_class()):
        where = _line(event.start_mark, first_line)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > deepest:
                raise FrontMatterError(
                    f"{source}{where}: lists and mappings nested more than {deepest} deep "
                    f"({MAX_DEPTH_ENV}); flatten the value"
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        if isinstance(event, yaml.AliasEvent):
            raise FrontMatterError(
                f"{source}{where}: YAML aliases (*{event.anchor}) are not allowed in front "
                "matter (they can expand without bound); write the value out"
            )
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise FrontMatterError(
                f"{source}{where}: YAML anchors (&{anchor}) are not allowed in front matter; "
                "write each value out"
            )
        if isinstance(event, yaml.ScalarEvent) and len(event.value) > longest:
            raise FrontMatterError(
                f"{source}{where}: a value of {len(event.value)} characters, more than "
                f"{MAX_VALUE_CHARS_ENV} ({longest}); shorten it (long text belongs in the "
                "body) or raise the limit"
            )


def _line(mark: Any, first_line: int) -> str:
    return f", line {mark.line + first_line}" if mark is not None else ""


_LOADER: Any = None


def _loader_class() -> Any:
    """A safe loader (libyaml's when available) that refuses duplicate keys."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml
    from yaml.constructor import ConstructorError

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class _StrictLoader(base):  # type: ignore[valid-type, misc]
        """Reads YAML safely; a mapping that names a key twice is an error."""

    def construct_mapping(loader: Any, node: Any, deep: bool = False) -> dict[Any, Any]:
        loader.flatten_mapping(node)
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue  # complex keys: the base constructor reports them
            key = (key_node.tag, key_node.value)  # the key as written: no need to build it
            if key in seen:
                raise ConstructorError(
                    None, None, f"duplicate key {key_node.value!r}", key_node.start_mark
                )
            seen.add(key)
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    _StrictLoader.add_constructor(
        yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
        lambda loader, node: construct_mapping(loader, node),
    )
    _LOADER = _StrictLoader
    return _LOADER
