"""The hub: asks' MCP server for the agents people already run (docs/design.md, "The hub").

* :mod:`asks.hub.identity` — who an agent is (its label) from a request;
* :mod:`asks.hub.token` — the per-user bearer token file (0600, stable, rotatable);
* :mod:`asks.hub.guard` — the ASGI layer in front of the SDK: Host/Origin, the token, bodies,
  and the receipts of offered answers (written once a response was handed to the connection);
* :mod:`asks.hub.tools` — the three tools on the host's :class:`~asks.host.hub.HubPort`;
* :mod:`asks.hub.server` — the SDK's server on hypercorn's trio worker, in the session's nursery;
* :mod:`asks.hub.clients` — what ``asks mcp config`` prints for Claude Code, Codex and JSON.

The official ``mcp`` SDK (and pydantic, starlette) is imported only by ``tools`` and ``server``,
which only a session with the hub on reaches: the plain REPL's launch and memory do not move.
"""
