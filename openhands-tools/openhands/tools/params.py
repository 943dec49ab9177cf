"""`parse_params`: check a tool spec's `params` against the tool's own pydantic model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from openhands.sdk.tool import InvalidToolSpecError
from pydantic import BaseModel, ValidationError

ParamsModel = TypeVar("ParamsModel", bound=BaseModel)


def parse_params(model: type[ParamsModel], tool: str, params: Mapping[str, Any]) -> ParamsModel:
    """`params` validated into `model`, or a ValueError naming each bad param and the good ones.

    Bad params fail when the conversation is built (a 422 on the server), not on the agent's
    first command.
    """
    try:
        return model.model_validate(dict(params))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc'])}: {error['msg']}"
            for error in exc.errors()
        )
        takes = ", ".join(model.model_fields)
        raise InvalidToolSpecError(
            f"Bad {tool} params ({problems}); {tool} takes {takes}."
        ) from None
