"""`ask_agent`: one side question to the agent's LLM about the conversation so far."""

from __future__ import annotations

from typing import Any

from openhands.sdk.conversation.errors import ConversationError
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.message import Message, TextContent

__all__ = ["ASK_AGENT_PROMPT", "ASK_AGENT_USAGE_ID", "answer_question"]

ASK_AGENT_USAGE_ID = "ask-agent-llm"
"""The usage_id of the LLM copy that answers `ask_agent` (its cost is counted under it)."""

ASK_AGENT_PROMPT = """<QUESTION>
Answer this question about the work in this conversation so far, in plain text. Do not call
any tool: this is only a question, the work itself goes on separately.

{question}
</QUESTION>"""


def answer_question(
    history: list[Message], llm: LLM, tools: list[dict[str, Any]], question: str
) -> str:
    """The LLM's text answer to `question` asked after `history` (one completion, no stream).

    The tool schemas are sent so the LLM understands the tool calls in the history. Raises
    `ConversationError` if the answer has no text (e.g. only a tool call).
    """
    prompt = ASK_AGENT_PROMPT.format(question=question.strip())
    messages = [*history, Message(role="user", content=[TextContent(text=prompt)])]
    reply = llm.completion(messages, tools=tools or None, stream=False).message
    answer = "\n".join(part.text for part in reply.content if isinstance(part, TextContent))
    if not answer.strip():
        raise ConversationError(
            "The agent's LLM answered the question with no text (perhaps only a tool call); "
            "ask again, or rephrase it."
        )
    return answer.strip()
