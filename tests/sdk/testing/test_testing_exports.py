"""The public names of `openhands.sdk.testing` are pinned."""

from __future__ import annotations

import openhands.sdk.testing as testing


def test_public_names_are_pinned() -> None:
    assert sorted(testing.__all__) == [
        "DemoScript",
        "FakeOpenAIServer",
        "FakeReply",
        "TestLLM",
        "TestLLMExhaustedError",
    ]
    assert all(hasattr(testing, name) for name in testing.__all__)
