"""Prompt-based tool calling: tools for models that have no native tool calling.

With `LLM(native_tool_calling=False)`, a chat completion with tools sends no `tools`: the
tools are described in the system prompt (`describe.py`), earlier calls and results are
written into the history as text (`history.py`, in the tag format of `grammar.py`), `stop`
ends the reply after its first call where the model takes stop words, and the reply's text
is read back into `MessageToolCall`s (`parse.py`). `LLM.completion` does this around its
transport for chat completions (the Responses API always sends its tools natively, as in the
reference SDK), so both transports (native and litellm), plain or streamed, send the same body,
and the agent gets the same `LLMResponse` it gets from a native call.

Loaded only by such a completion, never by `import openhands.sdk`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.errors import LLMBadRequestError, LLMModelNotFoundError
from openhands.sdk.llm.message import ImageContent, Message, TextContent
from openhands.sdk.llm.prompt_tools.describe import tools_section
from openhands.sdk.llm.prompt_tools.grammar import STOP_WORDS
from openhands.sdk.llm.prompt_tools.history import to_prompt_messages
from openhands.sdk.llm.prompt_tools.parse import parse_reply

if TYPE_CHECKING:
    from openhands.sdk.llm.llm_response import LLMResponse
    from openhands.sdk.llm.settings import LLMSettings

NO_STOP_WORD_MODELS = (
    "o1",
    "o3",
    "o4",
    "gpt-5",
    "grok-4-0709",
    "grok-code-fast-1",
    "deepseek-r1-0528",
)
"""Model names (after the provider prefix, by prefix) whose APIs refuse `stop`."""

MAX_STOP_WORDS = 4
"""The most `stop` strings the OpenAI API takes."""

NATIVE_OPTIONS = ("tool_choice", "parallel_tool_calls")
"""Request options about native tools: left out when the tools are in the prompt."""

TOOLS_REFUSED_HINT = (
    " If this server or model cannot take tools, set native_tool_calling=False on the LLM: "
    "the tools are then described in the prompt (docs/llm.md, prompt-based tool calling)."
)
"""Added to a refusal of a request with native tools that names tools."""


def takes_stop_words(llm: LLMSettings) -> bool:
    """Whether `stop` is sent: not `disable_stop_word`, and the model takes it
    (`capability_overrides={"supports_stop_words": ...}` decides, else `NO_STOP_WORD_MODELS`)."""
    if llm.disable_stop_word:
        return False
    override = llm.capability_overrides.get("supports_stop_words")
    if isinstance(override, bool):
        return override
    name = (llm.model_canonical_name or llm.model).lower().rsplit("/", 1)[-1]
    return not name.startswith(NO_STOP_WORD_MODELS)


class PromptToolCalling:
    """One completion's tools, carried in the prompt: rewrites the request, reads the reply."""

    __slots__ = ("stop", "tools", "tools_text")

    def __init__(self, llm: LLMSettings, tools: Sequence[dict[str, Any]]) -> None:
        self.tools = list(tools)
        self.tools_text = tools_section(self.tools)
        self.stop = list(STOP_WORDS) if takes_stop_words(llm) else []

    def messages(self, messages: list[Message]) -> list[Message]:
        """The history as the model reads it (tools section, calls and results as text)."""
        return to_prompt_messages(messages, self.tools_text)

    def params(self, params: dict[str, Any] | None) -> dict[str, Any] | None:
        """The caller's request options with our stop words added and native-tool options out."""
        out = {k: v for k, v in (params or {}).items() if k not in NATIVE_OPTIONS}
        if self.stop:
            given = out.get("stop")
            theirs = [given] if isinstance(given, str) else list(given or [])
            merged = [*self.stop, *(word for word in theirs if word not in self.stop)]
            out["stop"] = merged[:MAX_STOP_WORDS]
        return out or None

    def read(self, response: LLMResponse) -> LLMResponse:
        """`response` with the calls written in its text turned into tool calls."""
        message = response.message
        if message.tool_calls:
            return response
        parsed = parse_reply(message.text, self.tools)
        if not parsed.calls:
            return response
        images = [part for part in message.content if isinstance(part, ImageContent)]
        content = [TextContent(text=parsed.text)] if parsed.text else []
        update = {"content": [*content, *images], "tool_calls": parsed.calls}
        finish = response.finish_reason
        return response.model_copy(
            update={
                "message": message.model_copy(update=update),
                "finish_reason": "tool_calls" if finish in (None, "stop") else finish,
            }
        )


def hint_tools_refused(error: LLMBadRequestError) -> LLMBadRequestError:
    """`error` (a refused request that carried native tools) with advice to move the tools
    into the prompt when the server's words are about tools; else `error` itself."""
    text = str(error)
    if isinstance(error, LLMModelNotFoundError) or "tool" not in text.lower():
        return error
    if "native_tool_calling" in text:
        return error
    return type(error)(text + TOOLS_REFUSED_HINT, model=error.model)


__all__ = [
    "NO_STOP_WORD_MODELS",
    "PromptToolCalling",
    "hint_tools_refused",
    "takes_stop_words",
]
