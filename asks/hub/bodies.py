"""What a POST body must be before the MCP SDK sees it: bounded, JSON, one JSON-RPC message.

The guard (:mod:`asks.hub.guard`) reads a POST's whole body first (:func:`read_body`, at most
``limit`` bytes: beyond that it stops reading), checks and decodes it here (:func:`parse`),
then answers it on its lean path (:mod:`asks.hub.lean`) or hands the SDK the same bytes. A
body that is not acceptable gets a JSON-RPC error object in the HTTP response, the same for
both protocol generations the SDK serves (2026-07-28 and ``initialize`` sessions; left to it,
the second would answer with pydantic's validation dump under the wrong code):

* over ``limit`` bytes → 413, ``-32600`` (the SDK's own bound says the same in plain text);
* not UTF-8 JSON → 400, ``-32700`` *Parse error*;
* not one JSON object (a batch, a number, ``null``) → 400, ``-32600`` *Invalid Request*;
* ``"jsonrpc"`` other than ``"2.0"``, a ``"method"`` that is not a string, an ``"id"`` that is
  neither a string nor an integer, or neither ``"method"`` nor a ``"result"``/``"error"`` →
  400, ``-32600``;
* ``tools/call`` whose ``params`` is not an object, or whose ``name`` is not a string, or whose
  ``arguments`` (when present) is not an object → 400, ``-32602`` *Invalid params* naming the
  field (the SDK would say only "Invalid request parameters").

The error's ``id`` is the request's when it could be read (an int or a string), else ``null``.
Everything else — unknown methods, unknown tools, arguments the contract refuses — is the
SDK's and the tools' to answer (``-32601``; ``Error [code]`` tool results). Nothing here
touches the session: a refused body changes no state.
"""

from __future__ import annotations

import enum
import json
from typing import Any, Final

import attrs

from asks.hub.asgi import Receive, Send

TOOLS_CALL: Final = "tools/call"


class RpcError(enum.IntEnum):
    """The JSON-RPC 2.0 error codes a refused body gets."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    INVALID_PARAMS = -32602


@attrs.frozen
class BodyProblem:
    """Why a body is refused: the HTTP status and the JSON-RPC error it answers with."""

    status: int
    code: RpcError
    message: str
    request_id: int | str | None = None

    def response(self) -> bytes:
        error = {"code": int(self.code), "message": self.message}
        return json.dumps({"jsonrpc": "2.0", "id": self.request_id, "error": error}).encode()


class BodyTooLargeError(Exception):
    """The body went past the limit (reading stopped there)."""


async def read_body(receive: Receive, limit: int) -> bytes:
    """The whole body of an HTTP request; :class:`BodyTooLargeError` once more than ``limit``
    bytes came (the rest is not read). A disconnect before the end gives what came."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)  # http.disconnect: the SDK sees the same on its receive
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyTooLargeError
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def too_large(limit: int) -> BodyProblem:
    return BodyProblem(
        413,
        RpcError.INVALID_REQUEST,
        f"Request body too large: at most {limit / 2**20:g} MiB per request.",
    )


def parse(body: bytes) -> dict[str, Any] | BodyProblem:
    """``body`` decoded if it is one well-formed JSON-RPC message, else why not
    (docstring)."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return _invalid(RpcError.PARSE_ERROR, "Parse error: the body is not valid JSON.")
    refused = _problem(message)
    return message if refused is None else refused


def _problem(message: Any) -> BodyProblem | None:
    if isinstance(message, list):
        return _invalid(
            RpcError.INVALID_REQUEST,
            "Invalid Request: send one JSON-RPC message per request, not a batch.",
        )
    if not isinstance(message, dict):
        return _invalid(
            RpcError.INVALID_REQUEST, "Invalid Request: the body must be one JSON-RPC 2.0 object."
        )
    raw_id = message.get("id")
    request_id = raw_id if _valid_id(raw_id) else None
    if message.get("jsonrpc") != "2.0":
        return _invalid(
            RpcError.INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0".', request_id
        )
    if "id" in message and request_id is None:
        return _invalid(
            RpcError.INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer.'
        )
    method = message.get("method")
    if "method" not in message:
        if "id" in message and ("result" in message) != ("error" in message):
            return None  # a response to a request of the server's
        return _invalid(
            RpcError.INVALID_REQUEST,
            'Invalid Request: a message needs "method" '
            '(a request or notification) or "id" with "result" or "error".',
            request_id,
        )
    if not isinstance(method, str):
        return _invalid(
            RpcError.INVALID_REQUEST, 'Invalid Request: "method" must be a string.', request_id
        )
    if method == TOOLS_CALL:
        return _tool_call_problem(message.get("params"), request_id)
    return None


def _tool_call_problem(params: object, request_id: int | str | None) -> BodyProblem | None:
    if not isinstance(params, dict):
        return _invalid(
            RpcError.INVALID_PARAMS,
            'Invalid params: tools/call needs "params": {"name": …, "arguments": {…}}.',
            request_id,
        )
    if not isinstance(params.get("name"), str):
        return _invalid(
            RpcError.INVALID_PARAMS,
            'Invalid params: "name" must be the name of a tool (a string).',
            request_id,
        )
    arguments = params.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        return _invalid(
            RpcError.INVALID_PARAMS,
            f'Invalid params: "arguments" must be an object, not {_kind(arguments)}.',
            request_id,
        )
    return None


def _valid_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _kind(value: object) -> str:
    match value:
        case str():
            return "a string"
        case list():
            return "an array"
        case bool():
            return "a boolean"
        case int() | float():
            return "a number"
    return "null" if value is None else "a value of another kind"


def _invalid(code: RpcError, message: str, request_id: int | str | None = None) -> BodyProblem:
    return BodyProblem(400, code, message, request_id)


async def send_json(send: Send, status: int, payload: dict[str, Any]) -> None:
    """A whole JSON response (the hooks' replies)."""
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
