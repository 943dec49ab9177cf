"""POST /v1/responses: the OpenAI Responses API in front of an agent (as Codex and newer
OpenAI clients call it), plain or streamed. Loaded on first use (api/lazy.py).

A request is a turn of an agent conversation, exactly as a chat completion is (gateway.py):
the model is a stored LLM profile (`openhands_<profile>`, or `openhands_default` for the
server's default LLM), the answer the agent's reply once its run (or goal) has ended. The
conversation is continued by `previous_response_id` (every response id names its
conversation) or by the `X-OpenHands-ServerConversation-ID` header. A streamed answer sends
the Responses API's events: what the agent does meanwhile as a reasoning item's summary (or
as text before the answer), then the answer as `response.output_text.delta`, then
`response.completed`.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from openhands.agent_server.api.gateway import CONVERSATION_HEADER, request_turn
from openhands.agent_server.api.gateway_models import ChatMessage, ContentPart
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.responses_models import (
    IncompleteDetails,
    InputItem,
    OutputMessage,
    OutputText,
    ReasoningItem,
    ResponsesRequest,
    ResponseUsage,
    SummaryText,
)
from openhands.agent_server.api.responses_models import (
    Response as ResponseObject,
)
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.errors import InvalidRequestError, NotFoundError, ServerError
from openhands.agent_server.services.gateway import ChatGateway
from openhands.agent_server.services.gateway_watch import Answer, Note, TurnWatch, Waiting

router = APIRouter(tags=["openai"], route_class=CheckedRoute)

RESPONSE_ID = re.compile(r"^resp_([0-9a-f]{32})[0-9a-f]{16}$")
"""A response id: `resp_`, the conversation's id (hex), 16 random hex digits."""

TEXT_PARTS = frozenset({"input_text", "output_text", "text"})


@router.post(
    "/v1/responses",
    response_model=ResponseObject,
    response_model_exclude_none=True,
    responses={
        **error_responses(404, 409, 502, 504),
        200: {
            "content": {"text/event-stream": {}},
            "description": "A Response, or with `stream` the Responses API's server-sent events.",
        },
    },
)
async def create_response(
    body: ResponsesRequest,
    request: Request,
    conversation: Annotated[
        str | None,
        Header(alias=CONVERSATION_HEADER, description="Continue this conversation (its id)."),
    ] = None,
) -> Response:
    """Run the agent on the input's last user message (or the goal) and answer like OpenAI."""
    state = request.app.state
    gateway = ChatGateway(state.conversations, state.server_settings, state.config)
    profile, goal_by_model = gateway.resolve_model(body.model)
    conversation_id = _conversation_id(body.previous_response_id, conversation)
    if conversation_id is not None and conversation_id not in state.conversations:
        raise NotFoundError(
            f"Previous response {body.previous_response_id!r} not found: its conversation "
            f"{conversation_id} does not exist (any more)."
        )
    messages = _messages(body)
    turn = request_turn(
        messages,
        body.openhands_goal,
        profile,
        goal_by_model,
        new=conversation_id is None,
        field="input",
    )
    watch = await gateway.begin(turn, conversation_id)
    answer = _Answering(body, watch)
    headers = {CONVERSATION_HEADER: watch.conversation_id}
    if body.stream:
        return StreamingResponse(
            answer.events(),
            media_type="text/event-stream",
            headers={**headers, "Cache-Control": "no-cache"},
        )
    final: Answer | None = None
    async for update in watch.updates():
        if isinstance(update, Answer):
            final = update
    assert final is not None  # updates() ends with an Answer or raises
    return JSONResponse(
        answer.finished(final).model_dump(mode="json", exclude_none=True), headers=headers
    )


# -- the request ----------------------------------------------------------------------------


def _conversation_id(previous: str | None, header: str | None) -> uuid.UUID | None:
    if previous:
        match = RESPONSE_ID.match(previous.strip())
        if match is None:
            raise InvalidRequestError(
                "not a response id this server answered (resp_ followed by 48 hex digits)",
                ("body", "previous_response_id"),
            )
        return uuid.UUID(match.group(1))
    if header is None or not header.strip():
        return None
    try:
        return uuid.UUID(header.strip())
    except ValueError:
        raise InvalidRequestError(
            "not a conversation id (a UUID, as answered in this header)",
            ("header", CONVERSATION_HEADER),
        ) from None


def _messages(body: ResponsesRequest) -> list[ChatMessage]:
    """The input as chat messages, index for index (other item types become messages the
    turn skips), with `instructions` first as a system message."""
    items = (
        [InputItem(role="user", content=body.input)] if isinstance(body.input, str) else body.input
    )
    messages = [_message(item, i) for i, item in enumerate(items)]
    if body.instructions:
        # Appended, not prepended: the turn's 422s name input items by their index.
        messages.append(ChatMessage(role="system", content=body.instructions))
    return messages


def _message(item: InputItem, index: int) -> ChatMessage:
    if item.role is None or item.type not in (None, "message"):
        return ChatMessage(role="tool", content=None)  # a function call, its output, ...
    if item.content is None or isinstance(item.content, str):
        return ChatMessage(role=item.role, content=item.content)
    parts: list[ContentPart] = []
    for j, part in enumerate(item.content):
        if part.type in TEXT_PARTS:
            parts.append(ContentPart(type="text", text=part.text or ""))
        elif part.type == "input_image" and part.image_url is not None:
            url = part.image_url if isinstance(part.image_url, str) else part.image_url.get("url")
            if not isinstance(url, str):
                raise InvalidRequestError(
                    "an input_image needs an image_url (a URL or a data: URL)",
                    ("body", "input", index, "content", j, "image_url"),
                )
            parts.append(ContentPart(type="image_url", image_url=url))
        elif item.role == "user":
            raise InvalidRequestError(
                f"content parts of type {part.type!r} are not supported (use 'input_text' or "
                "'input_image' with an image_url)",
                ("body", "input", index, "content", j, "type"),
            )
    return ChatMessage(role=item.role, content=parts)


# -- the answer -----------------------------------------------------------------------------


class _Answering:
    """Builds one request's response object and, when streamed, its events."""

    def __init__(self, body: ResponsesRequest, watch: TurnWatch) -> None:
        self.body = body
        self.watch = watch
        conversation = uuid.UUID(watch.conversation_id)
        self.id = f"resp_{conversation.hex}{uuid.uuid4().hex[:16]}"
        self.created_at = time.time()
        self.sequence = 0
        self.reasoning: ReasoningItem | None = None
        self.message_id = f"msg_{uuid.uuid4().hex}"

    def response(self, **fields: Any) -> ResponseObject:
        """The response object as it stands."""
        body = self.body
        return ResponseObject(
            id=self.id,
            created_at=self.created_at,
            model=body.model,
            instructions=body.instructions,
            metadata=body.metadata,
            previous_response_id=body.previous_response_id,
            store=body.store if body.store is not None else True,
            openhands_conversation_id=self.watch.conversation_id,
            **fields,
        )

    def finished(self, answer: Answer, prefix: str = "") -> ResponseObject:
        """The response once the turn has ended."""
        complete = answer.finish_reason == "stop"
        message = OutputMessage(
            id=self.message_id,
            status="completed" if complete else "incomplete",
            content=[OutputText(text=prefix + answer.text)],
        )
        output: list[OutputMessage | ReasoningItem] = [message]
        if self.reasoning is not None:
            output.insert(0, self.reasoning)
        return self.response(
            status="completed" if complete else "incomplete",
            completed_at=time.time(),
            output=output,
            usage=ResponseUsage(
                input_tokens=answer.prompt_tokens,
                output_tokens=answer.completion_tokens,
                total_tokens=answer.prompt_tokens + answer.completion_tokens,
            ),
            incomplete_details=None if complete else IncompleteDetails(),
            openhands_goal=answer.goal,
        )

    # -- streaming ------------------------------------------------------------------------

    def event(self, kind: str, **payload: Any) -> bytes:
        """One server-sent event of the Responses API (`event:` line and JSON data)."""
        self.sequence += 1
        data = {"type": kind, "sequence_number": self.sequence, **payload}
        text = json.dumps(data, separators=(",", ":"), default=_jsonable)
        return f"event: {kind}\ndata: {text}\n\n".encode()

    async def events(self) -> AsyncIterator[bytes]:
        """The whole stream: created, progress, the answer, completed (or an error)."""
        progress = self.body.openhands_progress
        started = self.response(status="in_progress")
        yield self.event("response.created", response=started)
        yield self.event("response.in_progress", response=started)
        notes: list[str] = []
        try:
            async for update in self.watch.updates():
                if isinstance(update, Waiting):
                    yield b": the agent is working\n\n"
                elif isinstance(update, Note):
                    if progress == "reasoning":
                        for chunk in self._reasoning_note(update.text):
                            yield chunk
                    elif progress == "content":
                        notes.append(update.text)
                else:
                    for chunk in self._close_reasoning():
                        yield chunk
                    prefix = "".join(f"{note}\n" for note in notes)
                    for chunk in self._answer(update, prefix):
                        yield chunk
        except ServerError as exc:
            # The stream has started (status 200): an error can only be an event now, which
            # OpenAI clients raise as an APIError.
            error = {"message": exc.message, "type": "server_error", "code": exc.code}
            yield self.event("error", error=error, message=exc.message, code=exc.code)
            failed = self.response(
                status="failed", error={"code": exc.code or "server_error", "message": exc.message}
            )
            yield self.event("response.failed", response=failed)

    def _reasoning_note(self, text: str) -> list[bytes]:
        chunks: list[bytes] = []
        if self.reasoning is None:
            self.reasoning = ReasoningItem(id=f"rs_{uuid.uuid4().hex}")
            chunks.append(
                self.event("response.output_item.added", output_index=0, item=self.reasoning)
            )
        item = self.reasoning
        index = len(item.summary)
        part = SummaryText(text=text)
        where = {"item_id": item.id, "output_index": 0, "summary_index": index}
        chunks.append(
            self.event("response.reasoning_summary_part.added", **where, part=SummaryText(text=""))
        )
        chunks.append(self.event("response.reasoning_summary_text.delta", **where, delta=text))
        chunks.append(self.event("response.reasoning_summary_text.done", **where, text=text))
        chunks.append(self.event("response.reasoning_summary_part.done", **where, part=part))
        item.summary.append(part)
        return chunks

    def _close_reasoning(self) -> list[bytes]:
        if self.reasoning is None:
            return []
        return [self.event("response.output_item.done", output_index=0, item=self.reasoning)]

    def _answer(self, answer: Answer, prefix: str) -> list[bytes]:
        index = 1 if self.reasoning is not None else 0
        where = {"item_id": self.message_id, "output_index": index, "content_index": 0}
        final = self.finished(answer, prefix)
        message = final.output[index]
        text = prefix + answer.text
        return [
            self.event(
                "response.output_item.added",
                output_index=index,
                item=OutputMessage(id=self.message_id, status="in_progress"),
            ),
            self.event("response.content_part.added", **where, part=OutputText(text="")),
            self.event("response.output_text.delta", **where, delta=text),
            self.event("response.output_text.done", **where, text=text),
            self.event("response.content_part.done", **where, part=OutputText(text=text)),
            self.event("response.output_item.done", output_index=index, item=message),
            self.event(
                "response.completed" if final.status == "completed" else "response.incomplete",
                response=final,
            ),
        ]


def _jsonable(value: Any) -> Any:
    """JSON for the models inside an event (unset fields left out)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")
