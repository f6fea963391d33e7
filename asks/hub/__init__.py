"""The hub: asks' MCP server for the agents people already run (docs/design.md, "The hub").

* :mod:`asks.hub.identity` — who an agent is (its label) from a request;
* :mod:`asks.hub.token` — the per-user bearer token file (0600, stable, rotatable);
* :mod:`asks.hub.guard` — the ASGI layer in front of the SDK: Host/Origin, the token, bodies,
  and the receipts of offered answers (written once a response was handed to the connection);
* :mod:`asks.hub.calls` — the three tools' rules on the host's :class:`~asks.host.hub.HubPort`;
* :mod:`asks.hub.lean` — the hot 2026-07-28 calls answered by the guard, without the SDK;
* :mod:`asks.hub.tools` — the tools as the SDK's handlers (progress, tasks);
* :mod:`asks.hub.server` — the guard on the hub's own HTTP/1.1 server (:mod:`asks.hub.wire`),
  in the session's nursery, and the SDK's app behind it (:mod:`asks.hub.lazy`,
  :mod:`asks.hub.sdk`);
* :mod:`asks.hub.clients` — what ``asks mcp config`` prints for Claude Code, Codex and JSON.

The official ``mcp`` SDK (and pydantic, starlette) is imported only by ``sdk``, ``tools`` and
``tasks``, loaded at the first request the lean path leaves to the SDK: the plain REPL's launch
and memory do not move, and agents that only list the tools and ask async never load it.
"""
