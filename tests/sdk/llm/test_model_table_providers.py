"""The provider a bare model name gets from litellm's table read as data (`table_provider`,
used by the preflight and the transport's routing) is litellm's own answer, without
importing litellm. This test is about litellm: it imports it to compare."""

from __future__ import annotations

import pytest
from openhands.sdk.llm.model_table import table_provider

pytestmark = pytest.mark.slow  # imports litellm (seconds)

NAMES = [
    "gpt-4o",
    "gpt-5",
    "o3",
    "claude-sonnet-4-5",
    "claude-opus-4-1",  # newer than the table: a routing rule names the provider
    "claude-3-5-sonnet-20240620",  # not a name litellm takes bare
    "gemini-2.5-pro",
    "gemini-1.5-pro",
    "foo-bar",
    "llama3",
]


@pytest.mark.parametrize("name", NAMES)
def test_a_bare_name_gets_litellms_provider(name: str) -> None:
    import litellm

    try:
        expected: str | None = litellm.get_llm_provider(name)[1]
    except Exception:  # litellm's BadRequestError: it names no provider
        expected = None
    assert table_provider(name) == expected
