"""Test doubles shipped with the SDK: scripted LLMs, a fake OpenAI-compatible server, and the
deterministic demo script it answers with under `openhands-fake-llm`."""

from openhands.sdk.testing.demo_script import DemoScript
from openhands.sdk.testing.fake_openai_server import FakeOpenAIServer, FakeReply
from openhands.sdk.testing.test_llm import TestLLM, TestLLMExhaustedError

__all__ = ["DemoScript", "FakeOpenAIServer", "FakeReply", "TestLLM", "TestLLMExhaustedError"]
