"""The OpenAI-compatible gateway: GET /v1/models and POST /v1/chat/completions.

Any tool that speaks the OpenAI Chat Completions API can talk to an agent here: the model is
a stored LLM profile (`openhands_<profile>`), the answer is the agent's reply after its run,
streamed (`stream: true`, server-sent events) or not, and the answer's
`X-OpenHands-ServerConversation-ID` header, sent back on the next request, continues the same
conversation. The session key is accepted as `Authorization: Bearer` (the OpenAI client's
`api_key`). Beyond the reference, a request may carry a goal (`openhands_goal`, or the model
`openhands_goal_<profile>`): the answer then comes only once the judge and the verify command
agree, and a stream shows the goal's rounds as they happen. docs/gateway.md has the details.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from openhands.agent_server.api.gateway_models import (
    AnswerMessage,
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionRequest,
    ChatMessage,
    Choice,
    ChunkChoice,
    Delta,
    GatewayGoal,
    ModelCard,
    ModelList,
    Usage,
    sse,
)
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.errors import InvalidRequestError, ServerError
from openhands.agent_server.services.gateway import (
    ChatGateway,
    GoalSpec,
    Turn,
    goal_objective,
)
from openhands.agent_server.services.gateway_watch import Answer, Note, TurnWatch, Waiting
from openhands.sdk.llm import ImageContent, Message, TextContent

router = APIRouter(tags=["openai"], route_class=CheckedRoute)

CONVERSATION_HEADER = "X-OpenHands-ServerConversation-ID"
"""Answered with every completion; sent back, it continues that conversation."""


def _gateway(request: Request) -> ChatGateway:
    state = request.app.state
    return ChatGateway(state.conversations, state.server_settings, state.config)


@router.get("/v1/models", response_model=ModelList, responses=error_responses())
async def list_models(request: Request) -> ModelList:
    """The models a chat request may name: one pair per stored LLM profile."""
    return ModelList(data=[ModelCard(id=model) for model in _gateway(request).model_ids()])


@router.post(
    "/v1/chat/completions",
    response_model=ChatCompletion,
    responses={
        **error_responses(404, 409, 502, 504),
        200: {
            "content": {"text/event-stream": {}},
            "description": "A ChatCompletion, or with `stream` server-sent ChatCompletionChunks.",
        },
    },
)
async def chat_completions(
    body: ChatCompletionRequest,
    request: Request,
    conversation: Annotated[
        str | None,
        Header(alias=CONVERSATION_HEADER, description="Continue this conversation (its id)."),
    ] = None,
) -> Response:
    """Run the agent on the last user message (or the goal) and answer like OpenAI."""
    gateway = _gateway(request)
    profile, goal_by_model = gateway.resolve_model(body.model)
    conversation_id = _conversation_id(conversation)
    turn = request_turn(
        body.messages, body.openhands_goal, profile, goal_by_model, new=conversation_id is None
    )
    watch = await gateway.begin(turn, conversation_id)
    headers = {CONVERSATION_HEADER: watch.conversation_id}
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    if body.stream:
        return StreamingResponse(
            _stream(watch, body, completion_id),
            media_type="text/event-stream",
            headers={**headers, "Cache-Control": "no-cache"},
        )
    answer: Answer | None = None
    async for update in watch.updates():
        if isinstance(update, Answer):
            answer = update
    assert answer is not None  # updates() ends with an Answer or raises
    completion = ChatCompletion(
        id=completion_id,
        created=int(time.time()),
        model=body.model,
        choices=[
            Choice(message=AnswerMessage(content=answer.text), finish_reason=answer.finish_reason)
        ],
        usage=_usage(answer),
        openhands_goal=answer.goal,
    )
    return JSONResponse(completion.model_dump(mode="json", exclude_none=True), headers=headers)


# -- the request as a turn ----------------------------------------------------------------


def _conversation_id(value: str | None) -> uuid.UUID | None:
    if value is None or not value.strip():
        return None
    try:
        return uuid.UUID(value.strip())
    except ValueError:
        raise InvalidRequestError(
            "not a conversation id (a UUID, as answered in this header)",
            ("header", CONVERSATION_HEADER),
        ) from None


def request_turn(
    messages: list[ChatMessage],
    options: GatewayGoal | bool | None,
    profile: str,
    goal_by_model: bool,
    *,
    new: bool,
    field: str = "messages",
) -> Turn:
    """What a request with these messages (the body's `field`) and goal options asks for;
    422 naming the message or part that cannot be used."""
    last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"), None)
    if last is None:
        raise InvalidRequestError("needs at least one message with role 'user'", ("body", field))
    content = _parts(messages[last], last, field)
    message = Message(role="user", content=content)
    text = "\n".join(part.text for part in content if isinstance(part, TextContent))
    if options is True or (options is None and goal_by_model):
        options = GatewayGoal()
    goal = None
    if isinstance(options, GatewayGoal):
        goal = GoalSpec(
            objective=goal_objective(text, options.objective),
            verify=options.verify,
            limits=options,
            judge_profile=options.judge_profile,
        )
    system = [_text(m, i) for i, m in enumerate(messages) if m.role in ("system", "developer")]
    earlier = [
        f"{m.role}: {_text(m, i)}"
        for i, m in enumerate(messages[:last])
        if m.role in ("user", "assistant") and _text(m, i)
    ]
    context = ""
    if new and earlier:
        context = "Earlier in this chat (for context):\n\n" + "\n\n".join(earlier)
    return Turn(
        profile=profile,
        message=message,
        context=context,
        system_text="\n\n".join(t for t in system if t) if new else "",
        goal=goal,
    )


def _parts(message: ChatMessage, index: int, field: str) -> list[TextContent | ImageContent]:
    loc = ("body", field, index, "content")
    content = message.content
    if isinstance(content, str):
        parts: list[TextContent | ImageContent] = [TextContent(text=content)] if content else []
    else:
        parts = []
        for j, part in enumerate(content or []):
            if part.type == "text" and part.text:
                parts.append(TextContent(text=part.text))
            elif part.type == "image_url" and part.image_url is not None:
                url = part.image_url if isinstance(part.image_url, str) else part.image_url.url
                parts.append(ImageContent(image_urls=[url]))
            elif part.type not in ("text", "image_url"):
                raise InvalidRequestError(
                    f"content parts of type {part.type!r} are not supported (use 'text' or "
                    "'image_url')",
                    (*loc, j, "type"),
                )
    if not any(isinstance(p, TextContent) and p.text.strip() for p in parts) and not any(
        isinstance(p, ImageContent) for p in parts
    ):
        raise InvalidRequestError("the last user message has no text or image", loc)
    return parts


def _text(message: ChatMessage, index: int) -> str:
    content = message.content
    if isinstance(content, str):
        return content.strip()
    return "\n".join(p.text for p in content or [] if p.type == "text" and p.text).strip()


# -- answers ------------------------------------------------------------------------------


def _usage(answer: Answer) -> Usage:
    return Usage(
        prompt_tokens=answer.prompt_tokens,
        completion_tokens=answer.completion_tokens,
        total_tokens=answer.prompt_tokens + answer.completion_tokens,
    )


async def _stream(
    watch: TurnWatch, body: ChatCompletionRequest, completion_id: str
) -> AsyncIterator[bytes]:
    """The answer as server-sent chunks: progress while the agent works, then the answer."""
    created = int(time.time())

    def chunk(delta: Delta, finish_reason: str | None = None, **extra: object) -> bytes:
        return sse(
            ChatCompletionChunk(
                id=completion_id,
                created=created,
                model=body.model,
                choices=[ChunkChoice(delta=delta, finish_reason=finish_reason)],
                **extra,  # type: ignore[arg-type]
            )
        )

    progress = body.openhands_progress
    yield chunk(Delta(role="assistant", content=""))
    try:
        async for update in watch.updates():
            if isinstance(update, Waiting):
                yield b": the agent is working\n\n"
            elif isinstance(update, Note):
                if progress == "reasoning":
                    yield chunk(Delta(reasoning_content=update.text + "\n"))
                elif progress == "content":
                    yield chunk(Delta(content=update.text + "\n"))
            else:
                separator = "\n" if progress == "content" else ""
                yield chunk(Delta(content=separator + update.text))
                yield chunk(Delta(), update.finish_reason, openhands_goal=update.goal)
                if body.stream_options is not None and body.stream_options.include_usage:
                    yield sse(
                        ChatCompletionChunk(
                            id=completion_id,
                            created=created,
                            model=body.model,
                            choices=[],
                            usage=_usage(update),
                        )
                    )
    except ServerError as exc:
        # The answer has started (status 200): an error can only be an event now, which
        # OpenAI clients raise as an APIError.
        yield sse({"error": {"message": exc.message, "type": "server_error", "code": exc.code}})
    yield b"data: [DONE]\n\n"
