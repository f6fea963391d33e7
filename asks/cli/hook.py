"""``asks hook permission|rewake [--agent NAME]``: the hooks as commands (part of the
composition root; the work is :mod:`asks.hub.hookcmd`).

Both read the hook's JSON on stdin and speak to the hub this data dir and ``[mcp]`` settings
name (``--mcp-host``/``--mcp-port`` override), with agent NAME's own token (never minted here:
``asks mcp config … --agent NAME`` made it) or the shared one.

* ``permission`` prints the hub's reply and exits 0 — ``{}`` (the agent's own dialog decides)
  whenever the hub gives no decision.
* ``rewake`` (Claude Code's ``asyncRewake`` hook) waits for the agent's answers, prints them on
  stderr and exits 2 once their receipt is journaled (the idle session wakes with them);
  else it exits 0 with nothing printed (docs/rewake-hook.md).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from asks.config import load_config
from asks.hub.hookcmd import HOOK_TIMEOUT, REWAKE_TIMEOUT, forward, hook_url, hub_base, rewake

MAX_STDIN = 256 * 1024 + 1  # one byte over the hub's limit: the hub says 413 itself


def hook_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="asks hook", description="Forward an agent's hook to the asks hub."
    )
    parser.add_argument(
        "event",
        choices=["permission", "rewake"],
        help="the hook: PermissionRequest, or PostToolUse with asyncRewake (Claude Code)",
    )
    parser.add_argument("--agent", metavar="NAME", help="speak with agent NAME's own token")
    parser.add_argument("--data-dir", type=Path, metavar="DIR", help="where the tokens are kept")
    parser.add_argument("--config", type=Path, metavar="FILE", help="config file to read")
    parser.add_argument("--mcp-host", metavar="HOST")
    parser.add_argument("--mcp-port", type=int, metavar="PORT")
    parser.add_argument("--timeout", type=float, metavar="S", help=argparse.SUPPRESS)
    return parser


def hook_main(argv: Sequence[str]) -> int:
    """Run ``asks hook …`` (module docstring); 0 once the words parse, or the rewake's 2."""
    from asks.hub.credentials import agent_tokens  # noqa: PLC0415
    from asks.hub.token import token_path  # noqa: PLC0415
    from asks.store.files import default_data_dir  # noqa: PLC0415

    args = hook_parser().parse_args(list(argv))
    data_dir = args.data_dir or default_data_dir()
    config, _warnings = load_config(args.config)
    host = args.mcp_host or config.mcp.host
    port = config.mcp.port if args.mcp_port is None else args.mcp_port
    if args.agent is not None:
        token = agent_tokens(data_dir).get(args.agent)
    else:
        try:
            token = token_path(data_dir).read_text(encoding="utf-8").strip() or None
        except OSError:
            token = None
    body = sys.stdin.buffer.read(MAX_STDIN)
    if args.event == "rewake":
        timeout = REWAKE_TIMEOUT if args.timeout is None else args.timeout
        return rewake(hub_base(host, port), body, token, timeout, _to_stderr)
    timeout = HOOK_TIMEOUT if args.timeout is None else args.timeout
    done = forward(hook_url(host, port), body, token, timeout)
    if done.problem:
        print(done.problem, file=sys.stderr)
    print(done.stdout)
    return 0


def _to_stderr(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
