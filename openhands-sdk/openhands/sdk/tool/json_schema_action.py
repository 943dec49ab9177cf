"""Actions whose arguments are described by a JSON Schema given at run time, not a model.

MCP tools (the server's `inputSchema`) and client-defined tools (the client's `parameters`)
build one `JsonSchemaAction` subclass per tool: any JSON object is accepted as fields and
checked against the schema (top-level nulls dropped first: LLMs send them for optional
parameters). `schema_function` gives the LLM the schema verbatim, constraints included.
"""

from __future__ import annotations

import copy
import logging
from typing import Any, ClassVar

from openhands.sdk.tool.schema import Action
from openhands.sdk.tool.tool import SECURITY_RISK_PROPERTY, with_summary
from pydantic import ConfigDict, model_validator

__all__ = ["MAX_SCHEMA_ERRORS", "JsonSchemaAction", "object_schema", "schema_function"]

logger = logging.getLogger(__name__)

MAX_SCHEMA_ERRORS = 5
"""How many schema violations one invalid call reports."""


def _describe(error: Any) -> str:
    where = "/".join(str(part) for part in error.absolute_path)
    return f"{error.message} (at {where})" if where else error.message


class JsonSchemaAction(Action):
    """Arguments checked against the class's `input_schema` (a JSON Schema object)."""

    model_config = ConfigDict(extra="allow")

    input_schema: ClassVar[dict[str, Any]] = {}
    _validator: ClassVar[Any] = None

    @model_validator(mode="before")
    @classmethod
    def _check_schema(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = {key: value for key, value in data.items() if value is not None}
        validator = cls._schema_validator()
        if validator is not None:
            import jsonschema.exceptions

            errors = sorted(validator.iter_errors(data), key=jsonschema.exceptions.relevance)
            if errors:
                raise ValueError(
                    "; ".join(_describe(error) for error in errors[:MAX_SCHEMA_ERRORS])
                )
        return data

    @classmethod
    def _schema_validator(cls) -> Any:
        if cls._validator is None and cls.input_schema:
            import jsonschema.exceptions
            import jsonschema.validators

            try:
                validator_class = jsonschema.validators.validator_for(cls.input_schema)
                validator_class.check_schema(cls.input_schema)
                cls._validator = validator_class(cls.input_schema)
            except jsonschema.exceptions.SchemaError as exc:
                # The tool's author's problem: let the tool judge the arguments.
                logger.warning("ignoring the invalid inputSchema of %s: %s", cls.__name__, exc)
                cls._validator = False
        return cls._validator or None

    def arguments(self) -> dict[str, Any]:
        """The arguments as given (what to send to whoever runs the tool)."""
        return dict(self.model_extra or {})


def object_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """`schema` as function parameters: always an object with properties, no title."""
    result = copy.deepcopy(schema) if schema else {}
    result.setdefault("type", "object")
    result.setdefault("properties", {})
    result.pop("title", None)
    return result


def schema_function(
    name: str,
    description: str,
    schema: dict[str, Any],
    *,
    read_only: bool,
    add_security_risk_prediction: bool,
) -> dict[str, Any]:
    """The OpenAI function spec of a tool whose parameters are `schema`, unchanged.

    A tool that is not read-only also asks for `security_risk` when risk is predicted; every
    tool asks for the optional `summary`.
    """
    parameters = copy.deepcopy(schema)
    if add_security_risk_prediction and not read_only:
        parameters.setdefault("properties", {})["security_risk"] = dict(SECURITY_RISK_PROPERTY)
    with_summary(parameters)
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }
