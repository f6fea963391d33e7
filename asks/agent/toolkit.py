"""Small helpers shared by the agent's tools: their schema shape and argument decoding."""

from __future__ import annotations

from typing import Any

from asks import contract
from asks.agent.loop import ToolCall


def arguments_of(call: ToolCall) -> dict[str, Any] | contract.ToolError:
    """The call's arguments as a JSON object, or a coded ``invalid_arguments`` error."""
    value = contract.parse_arguments(call.arguments)
    if isinstance(value, contract.ToolError | dict):
        return value
    return contract.ToolError(
        contract.ErrorCode.INVALID_ARGUMENTS, "The arguments must be a JSON object."
    )


def invalid(message: str) -> str:
    """The text of an ``invalid_arguments`` error."""
    return contract.ToolError(contract.ErrorCode.INVALID_ARGUMENTS, message).text


def function_schema(
    name: str, description: str, properties: dict[str, Any], required: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A tool schema in OpenAI function shape (the providers convert it as they need)."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": list(required)},
        },
    }
