"""Wire models of meta profiles (/api/meta-profiles): named model-routing configurations (a
classifier LLM profile and the task classes it routes to LLM profiles). The reference
server's shapes; this server stores them but has no routing tool that uses them."""

from __future__ import annotations

import re

from openhands.sdk.wire.base import WireAnswer, WireRequest
from pydantic import Field, model_validator

_INSTANCE_TEXT = re.compile(r"{{\s*instance_text\s*}}")


class MetaProfileClass(WireRequest):
    """A kind of task and the LLM profile that should handle it."""

    description: str = Field(max_length=4096, description="What tasks of this class are like.")
    model: str = Field(max_length=64, description="The stored LLM profile for them.")


class MetaProfile(WireRequest):
    """A model-routing configuration: classes, or a direct-routing prompt template."""

    classifier_model: str = Field(max_length=64, description="The LLM profile that classifies.")
    classes: list[MetaProfileClass] = Field(default_factory=list, max_length=100)
    prompt_template: str | None = Field(
        default=None, max_length=65536, description="Must hold {{ instance_text }}."
    )
    model_table: str | None = Field(default=None, max_length=65536)

    @model_validator(mode="after")
    def _routes(self) -> MetaProfile:
        if self.prompt_template is not None:
            if _INSTANCE_TEXT.search(self.prompt_template) is None:
                raise ValueError("prompt_template must include {{ instance_text }}")
            if self.classes:
                raise ValueError("give classes or a prompt_template, not both")
        elif not self.classes:
            raise ValueError("a meta-profile needs either classes or a prompt_template to route")
        return self


class MetaProfileInfo(WireAnswer):
    """One entry of the list."""

    name: str
    classifier_model: str | None = None
    num_classes: int = 0


class MetaProfileListResponse(WireAnswer):
    """GET /api/meta-profiles."""

    meta_profiles: list[MetaProfileInfo]
    active_meta_profile: str | None = Field(
        default=None, description="Always null here: no agent routes between models."
    )


class MetaProfileDetailResponse(WireAnswer):
    """GET /api/meta-profiles/{name}."""

    name: str
    config: MetaProfile


class MetaProfileMutationResponse(WireAnswer):
    """What a save or delete answers."""

    name: str
    message: str


class ActivateMetaProfileResponse(WireAnswer):
    """POST /api/meta-profiles/{name}/activate."""

    name: str
    message: str
    applied: bool = Field(
        default=False, description="False: this server's agents cannot route between models."
    )
