"""Routing LLMs: one `LLM` that hands each call to one of several."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from openhands.sdk.llm import LLM, ImageContent, Message, TextContent, text_message
from openhands.sdk.llm.router import MultimodalRouter, RandomRouter, RouterLLM
from openhands.sdk.testing import FakeOpenAIServer, FakeReply, TestLLM
from pydantic import ValidationError

PICTURE = Message(
    role="user", content=[TextContent(text="what?"), ImageContent(image_urls=["data:,x"])]
)


def _router(primary: TestLLM, secondary: TestLLM) -> MultimodalRouter:
    return MultimodalRouter(
        usage_id="router", llms_for_routing={"primary": primary, "secondary": secondary}
    )


def test_images_go_to_the_primary_and_text_to_the_secondary() -> None:
    primary = TestLLM.from_messages([text_message("assistant", "I see a cat")], usage_id="p")
    secondary = TestLLM.from_messages([text_message("assistant", "plain")], usage_id="s")
    router = _router(primary, secondary)

    text_reply = router.completion([text_message("user", "hello")])
    image_reply = router.completion([PICTURE])

    assert (text_reply.message.text, image_reply.message.text) == ("plain", "I see a cat")
    assert router.active_llm is primary
    assert (primary.metrics.completions, secondary.metrics.completions) == (1, 1)


def test_a_prompt_too_long_for_the_secondary_goes_to_the_primary() -> None:
    primary = TestLLM.from_messages([text_message("assistant", "big model")])
    secondary = TestLLM(model="gpt-4o-mini", max_input_tokens=5)
    router = _router(primary, secondary)

    reply = router.completion([text_message("user", "word " * 50)])

    assert reply.message.text == "big model"


def test_a_router_works_through_the_real_llm_path(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("vision", [FakeReply.text("from vision")])
    server.script("cheap", [FakeReply.text("from cheap")])
    router = MultimodalRouter(
        llms_for_routing={"primary": make_llm("vision"), "secondary": make_llm("cheap")}
    )

    assert router.completion([text_message("user", "hi")]).message.text == "from cheap"
    assert router.completion([PICTURE]).message.text == "from vision"


def test_the_model_defaults_to_the_router_name() -> None:
    router = _router(TestLLM(), TestLLM())

    assert router.model == "multimodal_router"


def test_primary_and_secondary_are_required() -> None:
    with pytest.raises(ValidationError, match="secondary"):
        MultimodalRouter(llms_for_routing={"primary": TestLLM()})


def test_a_router_needs_at_least_one_llm() -> None:
    with pytest.raises(ValidationError, match="at least one"):
        RandomRouter(llms_for_routing={})


def test_random_router_uses_one_of_its_llms() -> None:
    a = TestLLM.from_messages([text_message("assistant", "a")], usage_id="a")
    b = TestLLM.from_messages([text_message("assistant", "b")], usage_id="b")
    router = RandomRouter(llms_for_routing={"a": a, "b": b})

    reply = router.completion([text_message("user", "pick")])

    assert reply.message.text in {"a", "b"}
    assert router.active_llm in (a, b)


def test_a_router_choosing_an_unknown_key_says_so() -> None:
    class Lost(RouterLLM):
        def select_llm(self, messages: list[Message]) -> str:
            return "nowhere"

    with pytest.raises(ValueError, match="nowhere"):
        Lost(llms_for_routing={"a": TestLLM()}).completion([text_message("user", "x")])
