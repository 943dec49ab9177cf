"""Front matter of Markdown files (skills, sub-agents, plugin commands), read with PyYAML.

The one reader of `---`-delimited YAML headers in this SDK: a document that starts with a
`---` line has a YAML mapping up to the next `---` (or `...`) line, then its body. YAML is
read safely (no Python objects) with libyaml when PyYAML has it. A key given twice is refused
(YAML would silently keep the last one), and every error names the file and the line.
"""

from __future__ import annotations

from typing import Any

from openhands.sdk.errors import OpenHandsError

__all__ = ["FrontMatterError", "parse_front_matter", "split_front_matter"]

_OPEN = "---"
_CLOSE = ("---", "...")


class FrontMatterError(OpenHandsError, ValueError):
    """A front matter block is not a valid YAML mapping; the message names the file and line."""


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
    """
    import yaml  # only when a front matter is read (import cost)

    try:
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
