"""`Tool`: the spec an agent is built with (a registered tool name plus its params)."""

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    field_serializer,
    field_validator,
)


class Tool(BaseModel):
    """A registered tool name plus the params its factory is called with.

    `params["response_schema"]` (a pydantic model class or a JSON schema) asks for
    structured output with every call of that tool; it is written as its JSON schema.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str = Field(
        min_length=1, description="Registered name, e.g. 'terminal' or 'TerminalTool'."
    )
    params: dict[str, Any] = Field(default_factory=dict)

    @field_validator("params", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return {} if value is None else value

    @field_serializer("params")
    def _schema_as_json(self, params: dict[str, Any], info: SerializationInfo) -> dict[str, Any]:
        schema = params.get("response_schema")
        if info.mode == "json" and isinstance(schema, type) and issubclass(schema, BaseModel):
            return {**params, "response_schema": schema.model_json_schema()}
        return params
