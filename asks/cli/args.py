"""The command line's grammar: the flags and commands of ``asks`` (see :mod:`asks.cli` for
what each does; ``asks mcp …`` has its own, :mod:`asks.cli.hub`). Parsing only: nothing here
reads a file or starts anything, and nothing of the hub is imported for its flags.

:func:`parse_args` is what the command runs: with no words at all (the README's ``asks``) the
parser's defaults are :data:`DEFAULTS`, and neither argparse nor the parser is built (about
13 M instructions, ~2.5 ms of the launch: issue 21, NOTES "## Floors (issue 21): launch");
tests/test_cli_args.py pins that they are what ``build_parser().parse_args([])`` gives.
"""

from __future__ import annotations

import enum
import types
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from asks.agent.provider import Provider
from asks.core import diagnostics, i18n
from asks.core.version import __version__

if TYPE_CHECKING:
    import argparse

# What ``build_parser().parse_args([])`` sets, dest by dest (``--version`` and ``-h`` set none).
DEFAULTS: Final[Mapping[str, Any]] = types.MappingProxyType(
    {
        "script": None,
        "data_dir": None,
        "config": None,
        "debug_log": None,
        "locale": None,
        "model": None,
        "provider": None,
        "base_url": None,
        "allow_commands": False,
        "prompt": None,
        "line": False,
        "web": False,
        "web_host": "127.0.0.1",
        "web_port": 0,
        "mcp": False,
        "mcp_port": None,
        "mcp_host": None,
        "resume": None,
        "cont": False,
        "command": None,
        "words": (),
        "prune": None,
        "force": False,
    }
)


HELP_WORDS: Final = frozenset({"-h", "--help"})
DESCRIPTION: Final = "A chat REPL whose agent asks you questions without blocking you."
EPILOG: Final = (
    "asks mcp config claude|codex|json [--agent NAME], asks mcp token [--agent NAME] "
    "[--rotate | --revoke NAME]: set up the hub's clients (asks mcp --help)"
)
HUB_DESCRIPTION: Final = (
    "A session with no agent of its own: agents outside asks (Claude Code, Codex, any MCP "
    "client) ask their questions here, through the hub, and a chat line '@name text' sends "
    "agent name a note. The transcript says where the hub listens and how to set a client up."
)
SESSIONS_DESCRIPTION: Final = (
    "The sessions kept in the data directory: with no more words, a list of them (the newest "
    "first); 'rm ID…' removes those sessions, --prune AGE the ones last used longer ago. A "
    "session with pending questions or undelivered answers is kept unless --force; one open in "
    "a running asks is never removed."
)
HUB_EPILOG: Final = (
    "Set up a client: asks mcp config claude|codex|json [--agent NAME], with this hub's "
    "--data-dir, --mcp-host and --mcp-port (asks mcp --help)"
)


class Grammar(enum.Enum):
    """Whose help a parser prints: plain ``asks``, ``asks hub`` or ``asks sessions``."""

    ASKS = "asks"
    HUB = "hub"
    SESSIONS = "sessions"


_DESCRIPTIONS: Final[Mapping[Grammar, str]] = types.MappingProxyType(
    {
        Grammar.ASKS: DESCRIPTION,
        Grammar.HUB: HUB_DESCRIPTION,
        Grammar.SESSIONS: SESSIONS_DESCRIPTION,
    }
)
_EPILOGS: Final[Mapping[Grammar, str | None]] = types.MappingProxyType(
    {Grammar.ASKS: EPILOG, Grammar.HUB: HUB_EPILOG, Grammar.SESSIONS: None}
)


def parse_args(words: Sequence[str]) -> argparse.Namespace:
    """The command line ``words`` parsed (argparse's errors and exits for bad ones). No words:
    a namespace of :data:`DEFAULTS` (attribute access and ``vars`` as argparse's), without
    loading argparse. Help asked of a command (``asks hub --help``, ``asks -h sessions``) is
    the command's own: its usage and only the flags it takes (:func:`build_parser`)."""
    if not words:
        return cast("argparse.Namespace", types.SimpleNamespace(**DEFAULTS))
    if HELP_WORDS.intersection(words) and (command := _command_of(words)) is not None:
        build_parser(Grammar(command)).parse_args(["--help"])  # prints it and exits 0
    return build_parser().parse_args(words)


def _command_of(words: Sequence[str]) -> str | None:
    """The command ``words`` name (``sessions``, ``hub``), help words aside."""
    parser = build_parser(with_help=False)
    known, _rest = parser.parse_known_args([w for w in words if w not in HELP_WORDS])
    return cast("str | None", known.command)


def build_parser(
    grammar: Grammar = Grammar.ASKS, *, with_help: bool = True
) -> argparse.ArgumentParser:
    """The grammar of ``asks``; for the help of a command (``hub``, ``sessions``), a parser of
    only the flags that command takes and no command word; ``with_help=False``: without ``-h``.
    """
    import argparse  # noqa: PLC0415 (not for the bare command: parse_args)

    parser = argparse.ArgumentParser(
        prog="asks" if grammar is Grammar.ASKS else f"asks {grammar.value}",
        description=_DESCRIPTIONS[grammar],
        epilog=_EPILOGS[grammar],
        add_help=with_help,
    )
    parser.add_argument("--version", action="version", version=f"asks {__version__}")
    _add_files(parser)
    if grammar is Grammar.SESSIONS:
        _add_sessions(parser, shown=True)
        return parser
    if grammar is Grammar.ASKS:
        _add_agent(parser)
    _add_surfaces(parser)
    _add_hub(parser, hub=grammar is Grammar.HUB)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--resume", metavar="ID", help="resume the session ID")
    group.add_argument(
        "--continue", dest="cont", action="store_true", help="resume the most recent session"
    )
    if grammar is Grammar.ASKS:
        parser.add_argument(
            "command",
            nargs="?",
            choices=[Grammar.SESSIONS.value, Grammar.HUB.value],
            help="'sessions' lists, removes or prunes the sessions (asks sessions --help); "
            "'hub' starts a session with no agent of its own, where agents outside asks ask "
            "(Claude Code, Codex, …) and @name text sends one a note (asks hub --help)",
        )
        _add_sessions(parser, shown=False)
    return parser


def _add_sessions(parser: argparse.ArgumentParser, *, shown: bool) -> None:
    """``asks sessions rm ID…`` and ``asks sessions --prune AGE`` (asks/store/prune.py); not
    ``shown`` in a help but ``asks sessions --help``'s own."""
    import argparse  # noqa: PLC0415 (loaded by build_parser already)

    def told(text: str) -> str:
        return text if shown else argparse.SUPPRESS

    parser.add_argument(
        "words", nargs="*", default=(), metavar="rm ID", help=told("'rm ID…' removes them")
    )
    parser.add_argument(
        "--prune",
        metavar="AGE",
        help=told("remove the sessions last used more than AGE ago (30d, 12h, 2w)"),
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help=told(
            "with 'rm' or '--prune': also remove sessions with pending questions or "
            "undelivered answers (never one open in a running asks)"
        ),
    )


def _add_files(parser: argparse.ArgumentParser) -> None:
    """Where sessions, the config and the debug log are; the language."""
    parser.add_argument("--data-dir", type=Path, metavar="DIR", help="where sessions are kept")
    parser.add_argument("--config", type=Path, metavar="FILE", help="config file to read")
    parser.add_argument(
        "--debug-log",
        type=Path,
        metavar="FILE",
        help="write a debug log (tracebacks of unexpected errors) to FILE "
        f"(default: ${diagnostics.ENV}, else none)",
    )
    parser.add_argument(
        "--locale",
        type=i18n.locale,
        metavar="CODE",
        help="the language shown: "
        + ", ".join(i18n.SHOWN_CODES)
        + " (default: [ui] locale, then LC_ALL, LC_MESSAGES, LANG)",
    )


def _add_agent(parser: argparse.ArgumentParser) -> None:
    """The flags of the session's own agent (the tour, a script, a model; ``-p``)."""
    parser.add_argument("--script", type=Path, metavar="FILE", help="run a script file")
    parser.add_argument("--model", metavar="NAME", help="the model's name at the provider")
    parser.add_argument(
        "--provider",
        choices=[p.value for p in Provider],
        help="the model's API: openai (any compatible server) or anthropic",
    )
    parser.add_argument("--base-url", metavar="URL", help="the server's base URL (…/v1)")
    parser.add_argument(
        "--allow-commands",
        action="store_true",
        help="with -p: run the model's shell commands without asking",
    )
    parser.add_argument(
        "-p",
        "--print",
        dest="prompt",
        nargs="?",
        const="-",
        metavar="PROMPT",
        help="run one turn without UI and print the answer ('-' or nothing: read stdin)",
    )


def _add_surfaces(parser: argparse.ArgumentParser) -> None:
    """Line mode and the web bridge."""
    parser.add_argument(
        "--line",
        action="store_true",
        help="plain lines instead of the full screen (automatic without a "
        "terminal or with TERM=dumb)",
    )
    parser.add_argument(
        "--web",
        action="store_true",
        help="also serve the pending questions to a browser (URL in the status)",
    )
    parser.add_argument(
        "--web-host",
        default="127.0.0.1",
        metavar="HOST",
        help="where the web bridge listens (default 127.0.0.1)",
    )
    parser.add_argument(
        "--web-port",
        type=_port,
        default=0,
        metavar="PORT",
        help="the web bridge's port (default: a free one)",
    )


def _add_hub(parser: argparse.ArgumentParser, *, hub: bool) -> None:
    """Where the hub listens; ``--mcp`` to serve it (``asks hub`` always does)."""
    if not hub:
        parser.add_argument(
            "--mcp",
            action="store_true",
            help="also serve the hub: Claude Code, Codex and other MCP clients ask "
            "through this session's panel (asks mcp config prints the set-up)",
        )
    parser.add_argument(
        "--mcp-port",
        type=_port,
        metavar="PORT",
        help="the hub's port (default: [mcp] port, else 8765)",
    )
    parser.add_argument(
        "--mcp-host",
        metavar="HOST",
        help="where the hub listens (default: [mcp] host, else 127.0.0.1)",
    )


def _port(text: str) -> int:
    import argparse  # noqa: PLC0415 (loaded by build_parser already)

    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}")
    return port
