"""The native transport on its own: which models it carries, what it sends, how it reads and
fails. Nothing here imports litellm (the parity with litellm is test_transport_parity.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk.llm import (
    LLM,
    ImageContent,
    LLMAuthenticationError,
    LLMConfigurationError,
    LLMResponseError,
    LLMTransientError,
    Message,
    TextContent,
    text_message,
)
from openhands.sdk.llm.model_table import table_entry
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from pydantic import SecretStr

HI = [text_message("user", "hi")]


@pytest.mark.parametrize(
    ("fields", "native"),
    [
        ({"model": "openai/gpt-4o"}, True),
        ({"model": "openai/my-model", "base_url": "http://127.0.0.1:8080/v1"}, True),
        ({"model": "hosted_vllm/qwen3", "base_url": "http://x/v1"}, True),
        ({"model": "lm_studio/qwen3"}, True),
        ({"model": "llamafile/local"}, True),
        ({"model": "litellm_proxy/claude"}, True),
        ({"model": "gpt-4o"}, True),  # the table lists it as an OpenAI model
        ({"model": "qwen2.5", "base_url": "http://127.0.0.1:8080/v1"}, True),
        ({"model": "my-model", "custom_llm_provider": "openai"}, True),
        ({"model": "claude-sonnet-4-5"}, False),  # an Anthropic model
        ({"model": "anthropic/claude-sonnet-4-5"}, False),
        ({"model": "openrouter/openai/gpt-4o"}, False),
        ({"model": "ollama/llama3", "base_url": "http://127.0.0.1:11434"}, False),
        ({"model": "openai/gpt-4o", "api_mode": "responses"}, False),  # Responses API
        ({"model": "openai/gpt-4o", "transport": "litellm"}, False),
        ({"model": "anthropic/claude", "transport": "native", "base_url": "http://x/v1"}, True),
    ],
)
def test_auto_picks_the_native_transport_for_openai_compatible_models(
    fields: dict[str, Any], native: bool
) -> None:
    assert LLM(**fields).uses_native_transport() is native


def test_the_transport_setting_is_in_the_llms_json_and_round_trips() -> None:
    llm = LLM(model="openai/gpt-4o", transport="litellm")

    dumped = json.loads(llm.model_dump_json())

    assert LLM(model="openai/gpt-4o").model_dump()["transport"] == "auto"
    assert dumped["transport"] == "litellm"
    assert LLM.model_validate(dumped).transport == "litellm"


def test_an_unknown_transport_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match="transport"):
        LLM(model="openai/gpt-4o", transport="grpc")  # type: ignore[arg-type]


def test_forcing_native_for_the_responses_api_is_a_clear_error() -> None:
    llm = LLM(model="openai/gpt-4o", transport="native", api_mode="responses")

    with pytest.raises(LLMConfigurationError, match="Responses API"):
        llm.completion(HI)


def test_forcing_native_for_another_provider_needs_its_base_url() -> None:
    llm = LLM(model="anthropic/claude-x", transport="native", api_key=SecretStr("k"))

    with pytest.raises(LLMConfigurationError, match="base_url"):
        llm.completion(HI)


def test_a_forced_model_of_another_provider_is_sent_without_its_prefix(
    server: FakeOpenAIServer,
) -> None:
    server.script("*", [FakeReply.text("ok")])
    llm = LLM(
        model="anthropic/claude-x",
        transport="native",
        base_url=server.base_url,
        api_key=SecretStr("k"),
    )

    assert llm.completion(HI).message.text == "ok"
    assert server.requests[-1]["model"] == "claude-x"


def test_a_completion_never_imports_litellm(server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.script("*", [FakeReply.text("hello", prompt_tokens=10, completion_tokens=2)] * 2)
    script = tmp_path / "call.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json, sys
            from pydantic import SecretStr
            from openhands.sdk.llm import LLM, text_message
            llm = LLM(model="openai/gpt-4o", base_url={server.base_url!r},
                      api_key=SecretStr("k"), stream=False)
            plain = llm.completion([text_message("user", "hi")])
            streamed = llm.completion([text_message("user", "hi")], stream=True,
                                      on_token=lambda chunk: None)
            print(json.dumps({{"text": [plain.message.text, streamed.message.text],
                              "cost": llm.metrics.accumulated_cost,
                              "litellm": sorted(m for m in sys.modules if m.startswith("litellm")),
                              "openai": "openai" in sys.modules}}))
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    row = table_entry("openai/gpt-4o")
    assert row is not None
    price = 10 * row["input_cost_per_token"] + 2 * row["output_cost_per_token"]

    assert report["text"] == ["hello", "hello"]
    assert report["cost"] == pytest.approx(2 * price)
    assert report["litellm"] == [] and report["openai"] is False


def test_prices_come_from_the_table_and_the_llms_own_prices_win(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    cached = FakeReply.text("a", prompt_tokens=1000, completion_tokens=100).with_usage(
        prompt_tokens_details={"cached_tokens": 400}
    )
    server.script("gpt-4o", [cached, cached])
    row = table_entry("openai/gpt-4o")
    assert row is not None

    from_table = make_llm("gpt-4o").completion(HI)
    own = make_llm("gpt-4o", input_cost_per_token=1e-6, output_cost_per_token=2e-6).completion(HI)

    assert from_table.cache_read_tokens == 400
    assert from_table.cost == pytest.approx(
        600 * row["input_cost_per_token"]
        + 400 * row["cache_read_input_token_cost"]
        + 100 * row["output_cost_per_token"]
    )
    assert own.cost == pytest.approx(1000 * 1e-6 + 100 * 2e-6)


@pytest.fixture
def no_table(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """litellm's table cannot be found (litellm not installed)."""
    from openhands.sdk.llm import model_table

    monkeypatch.setattr(model_table, "table_path", lambda: None)
    model_table.clear_cache()
    yield
    monkeypatch.undo()
    model_table.clear_cache()


@pytest.mark.usefixtures("no_table")
def test_without_litellms_table_prices_are_unknown_and_calls_still_work(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("gpt-4o", [FakeReply.text("a", prompt_tokens=10, completion_tokens=1)])

    response = make_llm("gpt-4o").completion(HI)

    assert response.message.text == "a"
    assert response.cost == 0.0


def test_reasoning_usage_and_stop_reason_are_read(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    reply = FakeReply.text("42", reasoning="6 x 7", finish_reason="length").with_usage(
        completion_tokens_details={"reasoning_tokens": 30}
    )
    server.script("agent", [reply])

    response = make_llm().completion(HI)

    assert response.message.reasoning_content == "6 x 7"
    assert (response.reasoning_tokens, response.finish_reason) == (30, "length")


def test_images_in_a_tool_result_move_to_a_user_message(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("a cat")])
    screenshot = "data:image/png;base64,AAAA"
    history = [
        Message(role="user", content=[TextContent(text="look")]),
        Message(role="assistant", content=[], tool_calls=[_call("c1")]),
        Message(
            role="tool",
            content=[ImageContent(image_urls=[screenshot])],
            tool_call_id="c1",
            name="browser",
        ),
    ]

    make_llm().completion(history)

    sent = server.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "user"]
    assert "image_url" not in json.dumps(sent[2])
    assert sent[3]["content"][1] == {"type": "image_url", "image_url": {"url": screenshot}}


def _call(call_id: str) -> Any:
    from openhands.sdk.llm import MessageToolCall

    return MessageToolCall(id=call_id, name="browser", arguments="{}")


def test_a_keyless_local_server_gets_the_placeholder_key(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HOSTED_VLLM_API_KEY", raising=False)
    server.script("*", [FakeReply.text("ok")])

    LLM(model="hosted_vllm/qwen3", base_url=server.base_url).completion(HI)

    assert server.request_headers[-1]["authorization"] == "Bearer fake-api-key"


def test_the_base_url_and_key_may_come_from_openais_variables(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    server.script("*", [FakeReply.text("ok")])

    LLM(model="openai/agent").completion(HI)

    assert server.request_headers[-1]["authorization"] == "Bearer sk-from-env"


def test_a_server_that_never_answers_is_retried_then_named(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("late").delayed(2.0)] * 3)

    with pytest.raises(LLMTransientError, match=r"within 0\.2 s") as caught:
        make_llm(timeout=0.2, num_retries=1).completion(HI)

    assert server.base_url in str(caught.value)


class _RawHandler(BaseHTTPRequestHandler):
    """Answers every POST with the class's `reply` bytes (a misbehaving server)."""

    status = 200
    content_type = "text/event-stream"
    reply = b""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(self.status)
        self.send_header("Content-Type", self.content_type)
        self.send_header("Content-Length", str(len(self.reply)))
        self.end_headers()
        self.wfile.write(self.reply)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def raw_server() -> Iterator[tuple[str, type[_RawHandler]]]:
    handler = type("Handler", (_RawHandler,), {})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", handler
    httpd.shutdown()
    httpd.server_close()


def _llm(base_url: str, **fields: Any) -> LLM:
    return LLM(
        model="openai/raw",
        base_url=base_url,
        api_key=SecretStr("k"),
        num_retries=0,
        **fields,
    )


def test_stream_comments_event_lines_and_keep_alives_are_skipped(
    raw_server: tuple[str, type[_RawHandler]],
) -> None:
    url, handler = raw_server
    chunk = {
        "id": "c",
        "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}],
    }
    handler.reply = (
        b": keep-alive\n\nevent: message\ndata: " + json.dumps(chunk).encode() + b"\n\n"
        b"data: [DONE]\n\n"
    )

    assert _llm(url, stream=True).completion(HI).message.text == "ok"


def test_an_error_inside_a_stream_is_an_llm_error(
    raw_server: tuple[str, type[_RawHandler]],
) -> None:
    url, handler = raw_server
    handler.reply = b'data: {"error": {"message": "model overloaded", "code": 503}}\n\n'

    with pytest.raises(LLMTransientError, match="model overloaded"):
        _llm(url, stream=True).completion(HI)


def test_an_answer_that_is_not_json_is_a_response_error(
    raw_server: tuple[str, type[_RawHandler]],
) -> None:
    url, handler = raw_server
    handler.content_type, handler.reply = "text/html", b"<html>proxy login</html>"

    with pytest.raises(LLMResponseError, match="not JSON"):
        _llm(url).completion(HI)


def test_an_error_page_that_is_not_json_still_names_the_status(
    raw_server: tuple[str, type[_RawHandler]],
) -> None:
    url, handler = raw_server
    handler.status, handler.content_type, handler.reply = 401, "text/plain", b"go away"

    with pytest.raises(LLMAuthenticationError, match="HTTP 401") as caught:
        _llm(url).completion(HI)

    assert "go away" in str(caught.value)
