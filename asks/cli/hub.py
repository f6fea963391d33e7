"""The hub's part of the command line (part of the composition root, :mod:`asks.cli`).

``asks mcp config claude|codex|json [--agent NAME]``   what to run or paste into a client
``asks mcp token [--agent NAME] [--rotate]``           print (or replace) the shared token or
                                                       an agent's own; ``--revoke NAME``
``--mcp`` / ``[mcp] enabled``                          serve the hub from this session
``--mcp-port PORT`` / ``[mcp] port`` (default 8765)    its fixed port; ``--mcp-host HOST``
``asks hub [--line] [--resume ID]``                    a session with no agent of its own: the
                                                       hub's agents ask, ``@name text`` is a note

The hub's listener is bound before the session and the screen start (:func:`prepare`): a
busy port is one line and exit 2, nothing written, and from then on the kernel queues agents'
connections. The server then runs in the session's own nursery (:func:`running`), in the
REPL once its first frame is drawn (importing the server and the guard takes ~0.05 s: the screen
does not wait for it), and the transcript says where agents connect. The MCP SDK (0.4–1.4 s,
~40 MiB) is imported only at the first agent's request (:mod:`asks.hub.lazy`): without the
hub, or with no agent yet, nothing of it loads. The hints it prints (how to set a
client up, and when a client was refused) carry the flags that reach this hub
(:meth:`HubPlan.setup_command`): ``--data-dir``, ``--mcp-host``, ``--mcp-port`` when they are
not the defaults.

An ``asks hub`` session (:func:`hub_session`, journaled with mode ``hub``) has the host, the
transcript and the prompt broker of any session, and an absent agent
(:class:`~asks.agent.absent.AbsentAgent`) on the same :class:`~asks.host.hub.HubPort` as the
server, so that the agents the server saw can be written to. Resumed, its transcript first
retells what the journal holds of the hub's agents (:class:`asks.hub.narration.RetoldHistory`:
the last lines at once, the older ones when the person scrolls up to them).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import shlex
import socket
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import trio

from asks.agent.transcript import Entry, EntryKind, Transcript
from asks.cli import startup
from asks.config import Config, load_config
from asks.core import events as ev
from asks.core.focus import TYPING_GUARD, Focus
from asks.core.i18n import _
from asks.host.host import QuestionHost
from asks.host.hub import HubPort
from asks.hub.clients import SERVER_NAME, Client, config_text
from asks.hub.codexqueue import find_codex
from asks.hub.credentials import Keyring, agent_token, revoke_agent
from asks.hub.hookcmd import hook_url
from asks.hub.hookconfig import (
    EVENT,
    REWAKE_EVENT,
    Entries,
    claude_allow,
    claude_entry,
    claude_rewake_entry,
    codex_entry,
    codex_home,
    install_plan,
    snippet,
    write_with_backup,
)
from asks.hub.identity import MAX_LABEL, label_problem
from asks.hub.listen import DEFAULT_PORT, LOOPBACK, LOOPBACK_NAMES, bind_listener
from asks.hub.token import load_token, rotate_token
from asks.store.entries import Record
from asks.store.files import default_data_dir
from asks.store.journal import Journal

if TYPE_CHECKING:
    from asks.hub.narration import Retold
    from asks.hub.server import HubServer
    from asks.store.projection import ProjectionView
    from asks.widgets.app import Session


def endpoint(args: argparse.Namespace, config: Config) -> tuple[str, int]:
    """The hub's host and port: flags, then ``[mcp]``, then the defaults."""
    host = getattr(args, "mcp_host", None) or config.mcp.host
    port = getattr(args, "mcp_port", None)
    return host, config.mcp.port if port is None else port


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/mcp"


# ---------------------------------------------------------------------------- asks mcp …
def setup_words(data_dir: Path, host: str, port: int) -> list[str]:
    """The flags that make ``asks mcp …`` reach the hub on ``host:port`` of ``data_dir``:
    each one only when it is not the default (an absolute data dir: it works from anywhere)."""
    words: list[str] = []
    if data_dir.absolute() != default_data_dir().absolute():
        words += ["--data-dir", str(data_dir.absolute())]
    if host != LOOPBACK:
        words += ["--mcp-host", host]
    if port != DEFAULT_PORT:
        words += ["--mcp-port", str(port)]
    return words


def mcp_parser() -> argparse.ArgumentParser:
    """The grammar of ``asks mcp config …`` and ``asks mcp token …``."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, metavar="DIR", help="where the tokens are kept")
    common.add_argument("--config", type=Path, metavar="FILE", help="config file to read")
    parser = argparse.ArgumentParser(prog="asks mcp", description="Set up the asks hub.")
    commands = parser.add_subparsers(dest="what", required=True)
    configure = commands.add_parser(
        "config", parents=[common], help="print what a client needs to ask through asks"
    )
    configure.add_argument("client", choices=[c.value for c in Client])
    configure.add_argument(
        "--agent",
        metavar="NAME",
        help="the agent this client is: its own token, its name on its tabs (without it: the "
        "shared token, which may speak as any agent)",
    )
    configure.add_argument("--mcp-port", type=int, metavar="PORT")
    configure.add_argument("--mcp-host", metavar="HOST")
    configure.add_argument(
        "--install",
        action="store_true",
        help="write the permission hook into the client's settings (after showing the diff "
        "and asking; the old file is kept as FILE.bak)",
    )
    configure.add_argument(
        "--yes", action="store_true", help="with --install: write without asking (still shown)"
    )
    token = commands.add_parser(
        "token", parents=[common], help="print the shared token, or an agent's own"
    )
    token.add_argument("--agent", metavar="NAME", help="that agent's own token (made if none)")
    changes = token.add_mutually_exclusive_group()
    changes.add_argument(
        "--rotate",
        action="store_true",
        help="replace it (clients configured with the old one must be set up again); a "
        "running hub refuses the old one at once",
    )
    changes.add_argument(
        "--revoke", metavar="NAME", help="remove agent NAME's token (refused at once)"
    )
    return parser


def mcp_main(argv: Sequence[str]) -> int:
    """``asks mcp config …`` / ``asks mcp token …`` (module docstring)."""
    parser = mcp_parser()
    args = parser.parse_args(list(argv))
    data_dir = args.data_dir or default_data_dir()
    config, warnings = load_config(args.config)
    for warning in warnings:
        print(warning, file=sys.stderr)
    agent: str | None = args.agent
    if agent is not None and label_problem(agent) is not None:
        print(
            _(
                "asks mcp: --agent {name}: use only letters, digits and . _ - (a letter, digit "
                "or _ first and last), at most {limit} characters, e.g. --agent team-a"
            ).format(name=shlex.quote(agent), limit=MAX_LABEL),
            file=sys.stderr,
        )
        return 2
    if args.what == "token":
        return _token(data_dir, agent, rotate=args.rotate, revoke=args.revoke)
    host, port = endpoint(args, config)
    token = load_token(data_dir) if agent is None else agent_token(data_dir, agent)
    again = ["asks", "mcp", "token", "--agent", agent or "NAME"]
    again += setup_words(data_dir, LOOPBACK, DEFAULT_PORT)
    client = Client(args.client)
    text = config_text(client, url_of(host, port), token, agent, shlex.join(again))
    hooks = _hooks(client, data_dir, host=host, port=port, token=token, agent=agent)
    if hooks is None:
        print(text)
        return 0
    path, entries = hooks
    if args.install:
        return _install(path, entries, _allowed(client), assume_yes=args.yes)
    print(text)
    print(hooks_text(client, path, entries))
    return 0


def _hooks(
    client: Client, data_dir: Path, *, host: str, port: int, token: str, agent: str | None
) -> tuple[Path, Entries] | None:
    """Where ``client``'s hooks go and their entries, per event (None: the client has none):
    the permission hook, and for a Claude Code agent with its own token the asyncRewake hook
    (docs/rewake-hook.md; with the shared token the hook could not tell which agent it waits
    for: a session's label comes from its MCP requests, which the hook does not see)."""

    def command(event: str) -> str:
        words = [sys.executable, "-m", "asks", "hook", event]
        words += ["--agent", agent] if agent is not None else []
        return shlex.join(words + setup_words(data_dir, host, port))

    match client:
        case Client.CLAUDE:
            path = Path.cwd() / ".claude" / "settings.local.json"
            entries = {EVENT: claude_entry(hook_url(host, port), token)}
            if agent is not None:
                entries[REWAKE_EVENT] = claude_rewake_entry(command("rewake"), SERVER_NAME)
            return path, entries
        case Client.CODEX:
            return codex_home() / "hooks.json", {EVENT: codex_entry(command("permission"))}
    return None


def _allowed(client: Client) -> tuple[str, ...]:
    """The permission rules written beside the hooks: Claude Code's for asks' own tools."""
    return claude_allow(SERVER_NAME) if client is Client.CLAUDE else ()


def hooks_text(client: Client, path: Path, entries: Entries) -> str:
    """The hooks' lines of ``asks mcp config`` (where they go, then the JSON)."""
    lines = [
        "",
        _("# permission prompts answered in asks' panel: add to {path}").format(path=path),
        _("# (asks mcp config {client} --install merges it there after showing the diff)").format(
            client=client.value
        ),
    ]
    if client is Client.CODEX:
        lines.append(
            _('# and approval_policy = "on-request" in config.toml; Codex asks once to trust it')
        )
    if REWAKE_EVENT in entries:
        lines.append(
            _(
                "# the PostToolUse hook wakes an idle session when you answer a question it "
                "asked without blocking"
            )
        )
    return "\n".join([*lines, snippet(entries, _allowed(client))])


def _install(path: Path, entries: Entries, allow: tuple[str, ...], *, assume_yes: bool) -> int:
    """``--install``: show the diff, ask, keep a backup, write (never silently)."""
    try:
        plan = install_plan(path, entries, allow)
    except ValueError as exc:
        print(f"asks mcp: {exc}", file=sys.stderr)
        return 2
    if plan.old == plan.new:
        print(_("{path} already has asks' permission hook.").format(path=path))
        return 0
    print(plan.diff(), end="")
    if not assume_yes:
        if not sys.stdin.isatty():
            print(
                _("asks mcp: not written: add --yes to write without a terminal"), file=sys.stderr
            )
            return 2
        answer = input(_("Write {path}? [y/N] ").format(path=path))
        if answer.strip().lower() not in ("y", "yes"):
            print(_("Nothing written."))
            return 1
    backup = write_with_backup(plan)
    print(_("Wrote {path}.").format(path=path))
    if backup is not None:
        print(_("The old file is {backup}.").format(backup=backup))
    return 0


def _token(data_dir: Path, agent: str | None, *, rotate: bool, revoke: str | None) -> int:
    if revoke is not None:
        if not revoke_agent(data_dir, revoke):
            print(
                _("asks mcp: no agent {name} has a token in {dir}").format(
                    name=shlex.quote(revoke), dir=data_dir
                ),
                file=sys.stderr,
            )
            return 2
        return 0
    if agent is not None:
        print(agent_token(data_dir, agent, rotate=rotate))
    else:
        print(rotate_token(data_dir) if rotate else load_token(data_dir))
    return 0


# ---------------------------------------------------------------------------- sessions
@attrs.define(eq=False)
class HubPlan:
    """A bound listener and the credentials, made before the session starts."""

    listener: socket.socket
    keyring: Keyring
    host: str  # as asked for (flag, [mcp] host or the default)
    port: HubPort | None = None  # the session's (asks hub: its chat writes to the agents seen)
    codex: str | None = None  # the codex binary for late answers (codex queue), if found
    typing_guard: float = TYPING_GUARD  # [ui] typing_guard

    def setup_command(self) -> str:
        """``asks mcp config claude`` with the flags that reach this hub, shell-quoted."""
        bound = int(self.listener.getsockname()[1])
        words = ["asks", "mcp", "config", "claude"]
        return shlex.join(words + setup_words(self.keyring.data_dir, self.host, bound))


def prepare(args: argparse.Namespace, config: Config, data_dir: Path) -> HubPlan:
    """Bind the hub's port and make sure the shared token exists (a busy port raises
    HubPortBusyError, one sentence)."""
    host, port = endpoint(args, config)
    if host not in LOOPBACK_NAMES:
        print(
            _(
                "warning: the hub listens on {host}, beyond this machine. Anyone who can reach it "
                "and has the token can read and answer your agents' questions, and plain HTTP is "
                "not encrypted."
            ).format(host=host),
            file=sys.stderr,
        )
    listener = bind_listener(host, port)
    load_token(data_dir)
    codex = find_codex(config.mcp.codex)
    return HubPlan(
        listener, Keyring(data_dir), host, codex=codex, typing_guard=config.ui.typing_guard
    )


@contextlib.asynccontextmanager
async def running(
    plan: HubPlan,
    host: QuestionHost,
    transcript: Transcript,
    after: trio.Event | None = None,
    listening: trio.Event | None = None,
) -> AsyncIterator[None]:
    """The hub served from ``plan`` while the block runs, started at once or once ``after``
    is set (the REPL's first frame); the transcript says where agents connect, then
    ``listening`` is set."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_serve, plan, host, transcript, after, listening)
        try:
            yield
        finally:
            from asks.hub.hooks import hand_back_all  # noqa: PLC0415 (the hub's own module)

            await hand_back_all((plan.port or host.hub_port).permissions)
            nursery.cancel_scope.cancel()


class AskedLine(Entry):
    """The transcript's line about a hub agent's questions just asked, its text made each
    time it is read (:func:`asks.hub.narration.asked_text`): the questions' texts are read
    back from the journal when the line is drawn, not kept per question (docs/fleet-scale.md,
    "Questions by number")."""

    __slots__ = ("_event", "_projection")

    def __init__(self, event: ev.QuestionAsked, projection: ProjectionView) -> None:
        self.kind, self.title, self.done = EntryKind.NOTICE, "", True
        self._event, self._projection = event, projection

    @property
    def text(self) -> str:
        from asks.hub.narration import asked_text  # noqa: PLC0415 (loaded with the server)

        return asked_text(self._event, self._projection)

    @text.setter
    def text(self, value: str) -> None:
        raise AttributeError("an AskedLine's text is made when read: it is never streamed")


async def _serve(
    plan: HubPlan,
    host: QuestionHost,
    transcript: Transcript,
    after: trio.Event | None,
    listening: trio.Event | None,
) -> None:
    if after is not None:
        await after.wait()
    # The method cache, not the GC pause: the CLI froze the heap once the session was built
    # (asks/cli/run.py), so collections no longer walk it, but the pause's check for frozen
    # objects does (gc.get_freeze_count: ~6 ms at 5,000 pending, more than it saves here).
    tricks = startup.CHOSEN - {startup.Trick.GC_PAUSE}
    with startup.importing(tricks, part="hub-server"):  # asks/cli/startup.py
        from asks.hub.guard import Refusal  # noqa: PLC0415 (lazy: only with the hub on)
        from asks.hub.narration import RefusalNotices, hub_ask, narrate  # noqa: PLC0415
        from asks.hub.server import HubServer  # noqa: PLC0415

    def told(event: ev.HostEvent) -> None:
        projection = host.surface_port.projection
        asked = hub_ask(event, projection)
        if asked is not None:  # its text read back when drawn
            transcript.append(AskedLine(asked, projection))
            return
        for line in narrate(event, projection):
            transcript.add(EntryKind.NOTICE, line)

    command = plan.setup_command()
    notices = RefusalNotices(command, trio.current_time)

    def refused(refusal: Refusal) -> None:
        line = notices.line(refusal)
        if line is not None:
            transcript.add(EntryKind.NOTICE, line)

    unsubscribe = host.subscribe_events(told)
    try:
        async with trio.open_nursery() as nursery:
            port = plan.port or host.hub_port
            server = HubServer(
                port, plan.keyring, plan.listener, on_refused=refused, codex=plan.codex
            )
            url: str = await nursery.start(server.run)
            _warm_start(server, plan.keyring.data_dir)
            transcript.add(EntryKind.NOTICE, _("Hub on {url}: agents ask here.").format(url=url))
            transcript.add(
                EntryKind.NOTICE,
                _("Set up a client with: {command} (or codex, json; --agent NAME)").format(
                    command=command
                ),
            )
            if listening is not None:
                listening.set()
    finally:
        unsubscribe()


def _warm_start(server: HubServer, data_dir: Path) -> None:
    """Load the SDK now if an agent of this hub needed it before, and remember it when one
    does (asks/hub/lazy.py, "A warm start")."""
    from asks.hub import lazy  # noqa: PLC0415 (the hub's own module)

    if server.sdk is None:
        return
    server.sdk.on_needed = functools.partial(lazy.remember, data_dir)
    if lazy.wanted(data_dir):
        server.sdk.warm()


# ---------------------------------------------------------------------------- asks hub
def model_flag(args: argparse.Namespace) -> str | None:
    """A flag given to ``asks hub`` that only a session's own agent could use, if any."""
    given = {
        "--script": args.script,
        "--model": args.model,
        "--provider": args.provider,
        "--base-url": args.base_url,
        "-p": args.prompt is not None,
        "--allow-commands": args.allow_commands,
    }
    return next((flag for flag, value in given.items() if value), None)


def retold_entry(line: Retold) -> Entry:
    """A retold line as a transcript entry: the person's own chat line, or a notice."""
    return Entry(EntryKind.USER if line.by_person else EntryKind.NOTICE, line.text)


def hub_session(
    journal: Journal, records: Sequence[Record], plan: HubPlan, *, resumed: bool
) -> Session:
    """An ``asks hub`` session (module docstring) on ``plan``'s port."""
    with startup.importing(part="hub-session"):  # the launch's tricks (asks/cli/startup.py)
        from asks.agent.absent import AbsentAgent  # noqa: PLC0415 (only for asks hub)
        from asks.agent.history import TAIL  # noqa: PLC0415
        from asks.agent.prompts import PromptBroker  # noqa: PLC0415
        from asks.agent.replay import resumed_notice  # noqa: PLC0415
        from asks.hub.narration import RetoldHistory  # noqa: PLC0415
        from asks.widgets.app import Session  # noqa: PLC0415

    focus = Focus.of_screen(plan.typing_guard)
    host = QuestionHost(journal, records, focus=focus, clock=trio.current_time)
    if host.panel_port.tabs:  # the first frame draws a question: its parts, with the tricks
        with startup.importing(part="hub-panel"):
            from asks.widgets.panel.view import warm_up  # noqa: PLC0415

            warm_up()
    transcript = Transcript()
    plan.port = host.hub_port
    if resumed:  # the last lines at once, the older ones when scrolled up to
        transcript.history = RetoldHistory(records, host.surface_port.projection, retold_entry)
        transcript.load_older(TAIL)
        stats = host.statistics()
        transcript.add(
            EntryKind.NOTICE,
            resumed_notice(journal.session_id, stats.pending, stats.saved_undelivered),
        )
    agent = AbsentAgent(plan.port, transcript)
    return Session(host, agent, transcript, PromptBroker(host.panel_port))
