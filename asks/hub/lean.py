"""The guard's lean path: the hot calls of the 2026-07-28 protocol answered without the SDK
(docs/fleet-scale.md, "The lean path for the hot calls").

Under fifty agents asking at once, the SDK and Starlette around a call cost about a third of
the hub's CPU per call (its request and middleware layers, the modern entry's task group and
its two tasks, the ``Mcp-Param-*`` schema walk, pydantic models in and out), and the SDK's
import ~0.4 s and ~38 MiB before an agent's first answer. The lean path answers the requests
the SDK would answer at once, and byte for byte as it would (``tests/test_hub_lean.py``
compares the two on random histories):

* :func:`lean_request` — whether the lean path takes a request, read from its headers and
  its decoded body: ``tools/list``, and ``tools/call`` of ``check_answers``,
  ``withdraw_question``, and ``ask_user_question`` with ``"blocking": false``, each on the
  2026-07-28 transport with every header and envelope field as the SDK wants it. ``None``
  for anything else, which goes to the SDK unchanged: the lean path has no errors of its
  own, the SDK's answer is the answer to anything it is not sure of.
* :class:`LeanPath` — answers a taken request through the tools' one set of rules
  (:class:`~asks.hub.calls.HubCalls`), as one JSON response.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

import attrs

from asks.core.version import __version__
from asks.hub.asgi import Scope, Send
from asks.hub.calls import ASK_TOOL, CHECK_TOOL, CallSite, HubCalls, tool_dicts
from asks.hub.guard import bound_agent
from asks.hub.identity import HEADER, agent_label

LEAN_VERSIONS: Final = frozenset({"2026-07-28"})  # a subset of the SDK's modern versions
PROTOCOL_VERSION_META: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META: Final = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_META: Final = "io.modelcontextprotocol/serverInfo"
PARAM_HEADER: Final = "mcp-param-"
# the headers the lean path reads: each must come at most once
READ: Final = frozenset(
    {"mcp-protocol-version", "mcp-method", "mcp-name", "content-type", "accept", HEADER}
)
LEAN_TOOLS: Final = frozenset({ASK_TOOL, CHECK_TOOL, "withdraw_question"})
REQUEST_KEYS: Final = frozenset({"jsonrpc", "id", "method", "params"})
CALL_KEYS: Final = frozenset({"name", "arguments", "_meta"})
JSON_HEADERS: Final = ((b"content-type", b"application/json"),)


class LeanMethod(enum.StrEnum):
    """The methods the lean path answers."""

    LIST = "tools/list"
    CALL = "tools/call"


@attrs.frozen
class LeanRequest:
    """A request the lean path takes: its JSON-RPC id, method, tool and arguments (empty for
    ``tools/list``), its ``_meta`` and the headers the agent's label is read from."""

    request_id: int | str
    method: LeanMethod
    name: str
    arguments: Mapping[str, Any]
    meta: Mapping[str, Any]
    headers: Mapping[str, str]


def lean_request(
    raw_headers: Iterable[tuple[bytes, bytes]], message: Mapping[str, Any]
) -> LeanRequest | None:
    """The request if the lean path takes it (module docstring), else ``None``."""
    headers = _read_headers(raw_headers)
    if headers is None or not _transport_ok(headers) or message.keys() != REQUEST_KEYS:
        return None
    request_id, method, params = message["id"], message["method"], message["params"]
    if not isinstance(request_id, int | str) or isinstance(request_id, bool):
        return None
    if method not in LeanMethod.__members__.values() or headers.get("mcp-method") != method:
        return None
    if not isinstance(params, dict) or not _envelope_ok(params.get("_meta"), headers):
        return None
    if method == LeanMethod.LIST:
        if params.keys() != {"_meta"}:
            return None
        return LeanRequest(request_id, LeanMethod.LIST, "", {}, params["_meta"], headers)
    name, arguments = params.get("name"), params.get("arguments", {})
    if not params.keys() <= CALL_KEYS or name not in LEAN_TOOLS or headers.get("mcp-name") != name:
        return None
    if not isinstance(arguments, dict) or (
        name == ASK_TOOL and arguments.get("blocking") is not False
    ):
        return None
    return LeanRequest(request_id, LeanMethod.CALL, name, arguments, params["_meta"], headers)


def _read_headers(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str] | None:
    """The headers the lean path reads, by lowercase name; ``None`` if one of them comes
    twice, or the request has an ``Origin`` or an ``Mcp-Param-*`` header (the SDK's)."""
    found: dict[str, str] = {}
    for raw_name, raw_value in raw:
        name = bytes(raw_name).decode("latin-1").lower()
        if name == "origin" or name.startswith(PARAM_HEADER):
            return None
        if name in READ:
            if name in found:
                return None
            found[name] = bytes(raw_value).decode("latin-1")
    return found


def _transport_ok(headers: Mapping[str, str]) -> bool:
    """The 2026-07-28 transport's headers as the SDK serves them: a version the lean path
    knows, a JSON body, and a client that accepts both JSON and event streams."""
    if headers.get("mcp-protocol-version") not in LEAN_VERSIONS:
        return False
    if not headers.get("content-type", "").lower().startswith("application/json"):
        return False
    accepted = {
        part.strip().split(";")[0].strip().lower() for part in headers.get("accept", "").split(",")
    }
    wild = "*/*" in accepted
    json_ok = wild or bool(accepted & {"application/json", "application/*"})
    events_ok = wild or bool(accepted & {"text/event-stream", "text/*"})
    return json_ok and events_ok


def _envelope_ok(meta: object, headers: Mapping[str, str]) -> bool:
    """The request's ``_meta`` carries the envelope the SDK requires (the protocol version,
    equal to the header's, and the client's capabilities) and asks for no progress."""
    if not isinstance(meta, dict):
        return False
    if meta.get(PROTOCOL_VERSION_META) != headers.get("mcp-protocol-version"):
        return False
    if not isinstance(meta.get(CLIENT_CAPABILITIES_META), dict):
        return False
    return "progressToken" not in meta and "progress_token" not in meta


@attrs.define(eq=False)
class LeanPath:
    """Answers the requests :func:`lean_request` takes (module docstring)."""

    calls: HubCalls
    _tools: bytes = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        tools = [dict(sorted(tool.items())) for tool in tool_dicts()]  # as the SDK's sieve
        listed = {"cacheScope": "private", "resultType": "complete", "tools": tools, "ttlMs": 0}
        self._tools = _dumps(listed)[:-1] + b',"_meta":' + _stamp() + b"}"

    def take(
        self, raw_headers: Iterable[tuple[bytes, bytes]], message: Mapping[str, Any]
    ) -> Taken | None:
        """The request, bound to this path, if the lean path takes it (the guard's
        :data:`~asks.hub.guard.LeanTaker`)."""
        request = lean_request(raw_headers, message)
        return None if request is None else Taken(self, request)

    async def answer(self, scope: Scope, request: LeanRequest, send: Send) -> None:
        """Answer ``request`` with one JSON response through ``send``."""
        if request.method is LeanMethod.LIST:
            result = self._tools
        else:
            result = await self._call(scope, request)
        body = (
            b'{"jsonrpc":"2.0","id":' + _dumps(request.request_id) + b',"result":' + result + b"}"
        )
        headers = [*JSON_HEADERS, (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _call(self, scope: Scope, request: LeanRequest) -> bytes:
        label = agent_label(bound_agent(scope), request.headers, request.meta, None)
        # no until_gone: a lean call never waits (an async retry of a waiting call's id is a
        # conflict: a retry must ask the same way), so nothing reads the connection
        site = CallSite(label, scope, request.request_id, request.meta)
        outcome = await self.calls.run(site, request.name, request.arguments)
        assert not isinstance(outcome, dict), "no detach: a lean call is never a task"
        text, failed = outcome
        content = {"text": text, "type": "text"}  # the SDK's key order
        result = {"content": [content], "isError": failed, "resultType": "complete"}
        return _dumps(result)[:-1] + b',"_meta":' + _stamp() + b"}"


def _stamp() -> bytes:
    return _dumps({SERVER_INFO_META: {"name": "asks", "version": __version__}})


def _dumps(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


@attrs.frozen
class Taken:
    """A request the lean path took, to be answered (:meth:`LeanPath.answer`)."""

    path: LeanPath
    request: LeanRequest

    async def answer(self, scope: Scope, send: Send) -> None:
        await self.path.answer(scope, self.request, send)
