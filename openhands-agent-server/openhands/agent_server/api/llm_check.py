"""POST /api/llm/check: is a model usable, before a conversation is created with it?

The web page asks this before it creates a conversation (or saves its default model), so a
wrong base URL, a refused key or a model the server does not serve is named at once, with
the URL and the fix, instead of after a run's retries. It is the command line's preflight
(`openhands.sdk.llm.preflight.check_llm`): one `GET <base_url>/models`, no tokens spent.

The LLM is completed as a conversation's would be: a stored profile by name
(`llm_profile`), and a key left out is filled from the stored settings or profiles (same
model and base URL) or LLM_API_KEY, so the check tries the key the conversation would use,
which never leaves the server. The answer has the shape of the reference server's profile
validation (`{valid, error: {type, message}}`): a model that cannot work is an answer, not an
HTTP error.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from openhands.agent_server.api.deps import control_pool, server_settings
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.errors import InvalidRequestError
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.llm import LLM
from openhands.sdk.llm.errors import LLMError
from openhands.sdk.llm.llm_profile_store import PROFILE_NAME
from openhands.sdk.wire.base import WireRequest
from pydantic import BaseModel, Field

router = APIRouter(prefix="/api/llm", tags=["llm"], route_class=CheckedRoute)

Stores = Annotated[ServerSettings, Depends(server_settings)]
Controls = Annotated[BlockingPool, Depends(control_pool)]

KEY_FIELD = "the LLM API key field"
MODEL_FIELD = "the Model field"
URL_FIELD = "the Base URL field"
"""How the messages name the settings: the page's fields, not the command line's flags."""


class LLMCheckRequest(WireRequest):
    """The LLM to check: `llm` as a conversation's agent would get it, or a stored profile."""

    llm: LLM | None = Field(
        default=None,
        description="The LLM (model, base_url, api_key); a missing key is "
        "filled as a new conversation's would be.",
    )
    llm_profile: str | None = Field(
        default=None, pattern=PROFILE_NAME.pattern, description="A stored LLM profile's name."
    )


class LLMCheckError(BaseModel):
    """Why the model cannot work: the error class and a message naming the URL and the fix."""

    type: str
    message: str


class LLMCheckResponse(BaseModel):
    """The check's verdict (`error` when `valid` is false)."""

    valid: bool
    error: LLMCheckError | None = None


@router.post("/check", response_model=LLMCheckResponse, responses=error_responses())
async def check_llm_route(
    request: LLMCheckRequest, stores: Stores, controls: Controls
) -> LLMCheckResponse:
    """Check that the model's server is there, takes the key and serves the model."""
    if (request.llm is None) == (request.llm_profile is None):
        raise InvalidRequestError("give either `llm` or `llm_profile`", ("body",))
    if request.llm_profile is not None:
        llm = stores.llm_defaults.profile_llm(
            request.llm_profile, usage_id=None, field=("llm_profile",)
        )
    else:
        assert request.llm is not None
        llm = request.llm.model_copy()
        stores.llm_defaults.fill_llm(llm)
    return await controls.run(_check, llm)


def _check(llm: LLM) -> LLMCheckResponse:
    from openhands.sdk.llm.preflight import check_llm

    try:
        check_llm(llm, key_flag=KEY_FIELD, model_flag=MODEL_FIELD, url_flag=URL_FIELD)
    except LLMError as exc:
        return LLMCheckResponse(
            valid=False, error=LLMCheckError(type=type(exc).__name__, message=str(exc))
        )
    return LLMCheckResponse(valid=True)


__all__ = ["LLMCheckRequest", "LLMCheckResponse", "router"]
