"""litellm's model table (prices, context windows, capabilities), read as data.

litellm ships `model_prices_and_context_window_backup.json` inside its package; this module
finds that file without importing litellm (`importlib.util.find_spec` only locates the
package) and reads it once, on first use (~5 MB, a few tens of ms). The native transport
takes its prices and capabilities from here, so a process that never uses litellm still
shows the costs litellm would have computed. Only the bundled table is read: litellm's
option to fetch a newer one from the network (`LITELLM_LOCAL_MODEL_COST_MAP=False`) and
`litellm.register_model` do not reach it; set `input_cost_per_token` / `output_cost_per_token`
or `capability_overrides` on the `LLM` instead.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
import re
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

TABLE_FILE = "model_prices_and_context_window_backup.json"
"""The table's file name inside the litellm package."""

RULES_KEY = "fallback_generalizations"
"""The table's block of rules for models it does not list (regexes over model names)."""


def table_path() -> Path | None:
    """Where the installed litellm keeps its table (None: litellm is not installed)."""
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / TABLE_FILE
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def _raw() -> dict[str, Any]:
    path = table_path()
    if path is None:
        logger.warning("litellm's model table was not found: model prices are unknown (0)")
        return {}
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        logger.warning("litellm's model table %s cannot be read (%s): prices unknown", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


@functools.cache
def _table() -> dict[str, dict[str, Any]]:
    return {
        key: value for key, value in _raw().items() if isinstance(value, dict) and key != RULES_KEY
    }


class _Rule:
    """A capability rule: models whose name matches `pattern` have `info`."""

    __slots__ = ("fill_for", "info", "pattern")

    def __init__(self, pattern: re.Pattern[str], info: dict[str, Any], fill_for: frozenset[str]):
        self.pattern = pattern
        self.info = info
        self.fill_for = fill_for


@functools.cache
def _rules() -> tuple[_Rule, ...]:
    """litellm's capability rules, in file order (routing-only rules are left out)."""
    block = _raw().get(RULES_KEY)
    rules = block.get("rules") if isinstance(block, dict) else None
    if not isinstance(rules, list):
        return ()
    by_name = {
        r["name"]: r["model_info"]
        for r in rules
        if isinstance(r, dict)
        and isinstance(r.get("name"), str)
        and isinstance(r.get("model_info"), dict)
    }
    out = []
    for rule in rules:
        if not isinstance(rule, dict) or not isinstance(rule.get("model_info"), dict):
            continue
        info = dict(rule["model_info"])
        parent = by_name.get(rule.get("extends")) if isinstance(rule.get("extends"), str) else None
        if parent is not None:
            info = {**parent, **info}
        if not set(info) - {"litellm_provider"}:
            continue  # a routing rule: it names a provider, it describes nothing
        try:
            pattern = re.compile(str(rule.get("pattern")), re.IGNORECASE)
        except re.error:
            continue
        fill = rule.get("fill_missing_for_providers")
        fill_for = (
            frozenset(p for p in fill if isinstance(p, str))
            if isinstance(fill, list)
            else frozenset()
        )
        out.append(_Rule(pattern, info, fill_for))
    return tuple(out)


def split_model(model: str, custom_llm_provider: str | None = None) -> tuple[str | None, str]:
    """(provider, the name the provider knows the model by) of a litellm model name.

    `custom_llm_provider` wins over a prefix; a name without "/" has no provider (None).
    """
    if custom_llm_provider:
        prefix = f"{custom_llm_provider}/"
        return custom_llm_provider, model.removeprefix(prefix)
    if "/" not in model:
        return None, model
    provider, name = model.split("/", 1)
    return provider, name


@functools.lru_cache(maxsize=256)
def table_entry(model: str, provider: str | None = None) -> dict[str, Any] | None:
    """The table's row for `model` (a litellm name, maybe prefixed), or None if it has none.

    A prefixed name matches its own key (`openrouter/openai/gpt-4o`) or the bare name of a
    row of that provider (`openai/gpt-4o` -> `gpt-4o`, an "openai" row; a `litellm_proxy`
    model matches a row of any provider); a bare name matches its key. A name the table
    does not list gets what the table's rules for unknown names say (`openai/o9` is a
    reasoning model), as litellm does. `provider` is the LLM's `custom_llm_provider`.
    """
    table = _table()
    prefix, name = split_model(model, provider)
    candidates = [name] if prefix is None else [f"{prefix}/{name}", name]
    for key in candidates:
        row = table.get(key)
        if row is not None and (prefix is None or _provider_matches(row, prefix)):
            return _filled(key, row)
    if any(key in table for key in candidates):
        return None  # listed, but for another provider
    matched: dict[str, Any] = {}
    for rule in _rules():
        if any(rule.pattern.search(key) for key in candidates):
            matched.update(rule.info)
    if not matched:
        return None
    return {**matched, "litellm_provider": prefix or matched.get("litellm_provider")}


def _provider_matches(row: dict[str, Any], provider: str) -> bool:
    listed = row.get("litellm_provider")
    return listed is None or listed == provider or provider == "litellm_proxy"


def _filled(key: str, row: dict[str, Any]) -> dict[str, Any]:
    """`row` (under `key`) with the keys it lacks from the rules flagged to fill in for its
    provider."""
    provider = row.get("litellm_provider")
    extra: dict[str, Any] = {}
    for rule in _rules():
        if provider in rule.fill_for and rule.pattern.search(key):
            extra.update(rule.info)
    if not extra:
        return row
    return {**{k: v for k, v in extra.items() if k not in row}, **row}


def clear_cache() -> None:
    """Read the table again on next use (after installing another litellm; in tests)."""
    for cached in (_raw, _table, _rules, _routing, table_entry):
        cached.cache_clear()


def table_provider(model: str) -> str | None:
    """The provider the table gives a bare model name (None: it names none): its own row,
    else the first of litellm's routing rules whose pattern matches it (`claude-*` is
    Anthropic's, also a model newer than the table), as litellm decides."""
    row = _table().get(model)
    provider = row.get("litellm_provider") if row else None
    if isinstance(provider, str):
        # The table files Vertex's models by kind ("vertex_ai-language-models"); the
        # provider that calls them is "vertex_ai".
        return "vertex_ai" if provider.startswith("vertex_ai-") else provider
    for pattern, routed in _routing():
        if pattern.search(model):
            return routed
    return None


@functools.cache
def _routing() -> tuple[tuple[re.Pattern[str], str], ...]:
    """litellm's routing rules (a pattern and the provider it names), in file order."""
    block = _raw().get(RULES_KEY)
    rules = block.get("rules") if isinstance(block, dict) else None
    out: list[tuple[re.Pattern[str], str]] = []
    for rule in rules if isinstance(rules, list) else ():
        info = rule.get("model_info") if isinstance(rule, dict) else None
        if not isinstance(info, dict) or set(info) != {"litellm_provider"}:
            continue
        provider = info["litellm_provider"]
        try:
            pattern = re.compile(str(rule.get("pattern")), re.IGNORECASE)
        except re.error:
            continue
        if isinstance(provider, str):
            out.append((pattern, provider))
    return tuple(out)


__all__ = ["TABLE_FILE", "clear_cache", "table_entry", "table_path", "table_provider"]
