"""Images in user messages: sent to vision models as image parts, in order; Anthropic's
many-image limit respected by scaling inline images down."""

from __future__ import annotations

import base64
import io
import json

import pytest
from openhands.sdk import LLM, Agent, Conversation, ImageContent, Message, TextContent
from openhands.sdk.testing import FakeOpenAIServer
from openhands.sdk.testing.fake_reply import FakeReply
from PIL import Image
from pydantic import SecretStr


def _png(width: int, height: int, color: str = "red") -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color=color).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def _size(url: str) -> tuple[int, int]:
    data = base64.b64decode(url.split(",", 1)[1])
    with Image.open(io.BytesIO(data)) as image:
        return image.size


def _image_urls(messages: list[dict]) -> list[str]:
    return [
        part["image_url"]["url"]
        for message in messages
        for part in message["content"]
        if isinstance(message["content"], list) and part.get("type") == "image_url"
    ]


def _message(urls: list[str]) -> Message:
    return Message(
        role="user", content=[TextContent(text="what are these?"), ImageContent(image_urls=urls)]
    )


def test_more_than_20_inline_images_are_scaled_to_fit_2000px_for_anthropic() -> None:
    llm = LLM(model="anthropic/claude-sonnet-4-5-20250929")
    urls = [_png(2500, 100) for _ in range(21)]

    sent = _image_urls(llm.format_messages_for_llm([_message(urls)]))

    assert len(sent) == 21
    assert all(_size(url) == (2000, 80) for url in sent)  # aspect ratio kept


def test_twenty_images_or_another_provider_are_sent_unchanged() -> None:
    urls = [_png(2500, 100) for _ in range(20)]
    anthropic = LLM(model="anthropic/claude-sonnet-4-5-20250929")
    openai = LLM(model="openai/gpt-5.5")

    assert _image_urls(anthropic.format_messages_for_llm([_message(urls)])) == urls
    many = [*urls, _png(2500, 100)]
    assert _image_urls(openai.format_messages_for_llm([_message(many)])) == many


def test_image_links_are_left_to_the_provider() -> None:
    llm = LLM(model="anthropic/claude-sonnet-4-5-20250929")
    urls = [_png(2500, 100) for _ in range(20)] + ["https://example.com/big.png"]

    sent = _image_urls(llm.format_messages_for_llm([_message(urls)]))

    assert sent[-1] == "https://example.com/big.png"


def test_a_model_without_vision_gets_no_image() -> None:
    llm = LLM(model="openai/x", disable_vision=True)

    assert _image_urls(llm.format_messages_for_llm([_message([_png(10, 10)])])) == []


@pytest.mark.slow
def test_a_conversation_sends_text_and_images_in_order(workspace_dir) -> None:
    with FakeOpenAIServer() as server:
        server.script("vision", [FakeReply.text("a red square and a link")])
        llm = LLM(model="openai/vision", base_url=server.base_url, api_key=SecretStr("k"))
        conversation = Conversation(Agent(llm=llm, tools=[]), workspace=str(workspace_dir))
        inline = _png(4, 4)
        conversation.send_message(_message(["https://example.com/a.png", inline]))
        conversation.run()
        conversation.close()
        [request] = server.requests_for("vision")

    content = request["messages"][-1]["content"]
    assert [part["type"] for part in content] == ["text", "image_url", "image_url"]
    assert [part["image_url"]["url"] for part in content[1:]] == [
        "https://example.com/a.png",
        inline,
    ]
    events = [e.model_dump(mode="json") for e in conversation.state.events]
    assert "a red square" in json.dumps(events)
