"""REST routes of the LLM catalogue for model pickers: /api/llm/providers, /api/llm/models,
/api/llm/models/verified. Loaded on first use (api/lazy.py); the first call reads litellm's
bundled model map (a second or two), in a worker thread."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from openhands.agent_server.api.deps import control_pool
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.services import llm_catalogue
from pydantic import BaseModel, Field

router = APIRouter(prefix="/api/llm", tags=["llm"], route_class=CheckedRoute)

Controls = Annotated[BlockingPool, Depends(control_pool)]


class ProvidersResponse(BaseModel):
    """GET /api/llm/providers."""

    providers: list[str] = Field(description="Every provider name a model may start with.")


class ModelsResponse(BaseModel):
    """GET /api/llm/models."""

    models: list[str] = Field(description="Model names, sorted.")


class VerifiedModelsResponse(BaseModel):
    """GET /api/llm/models/verified."""

    models: dict[str, list[str]] = Field(description="Recommended models by provider.")


@router.get("/providers", response_model=ProvidersResponse, responses=error_responses())
async def list_providers(controls: Controls) -> ProvidersResponse:
    """Every LLM provider litellm can call (`openai`, `anthropic`, ...)."""
    return ProvidersResponse(providers=await controls.run(llm_catalogue.providers))


@router.get("/models", response_model=ModelsResponse, responses=error_responses())
async def list_models(
    controls: Controls,
    provider: Annotated[
        str | None,
        Query(max_length=100, description="Only this provider's models (e.g. 'anthropic')."),
    ] = None,
) -> ModelsResponse:
    """Every model of litellm's bundled model map (of one provider, if given); an unknown
    provider has none."""
    return ModelsResponse(models=await controls.run(llm_catalogue.models, provider))


@router.get("/models/verified", response_model=VerifiedModelsResponse, responses=error_responses())
async def list_verified_models(controls: Controls) -> VerifiedModelsResponse:
    """A short list of recommended models, by provider (those litellm's map knows)."""
    return VerifiedModelsResponse(models=await controls.run(llm_catalogue.recommended))
