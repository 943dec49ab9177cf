"""Test doubles shipped with the SDK: scripted LLMs and a fake OpenAI-compatible server."""

from openhands.sdk.testing.fake_openai_server import FakeOpenAIServer, FakeReply
from openhands.sdk.testing.test_llm import TestLLM, TestLLMExhaustedError

__all__ = ["FakeOpenAIServer", "FakeReply", "TestLLM", "TestLLMExhaustedError"]
