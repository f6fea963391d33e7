"""Running a session: on the full screen or as plain lines (one composition), or ``-p``.

:func:`run_session` is the one composition for both interactive surfaces: the hub's port bound
(before anything is written: a busy port is one line), the session started, the heap frozen
once the replayed state is built (full collections need not rescan it), the configured hooks
and the hub running beside the surface (its server started once the surface shows the
session: after the REPL's first frame, so the MCP SDK's import never delays it), the model
closed at the end, and the line that says how to resume. What differs is the :class:`Surface`:

* :class:`Screen`: the REPL (asks/widgets/app.py). The config warnings printed on stderr
  before it took over are said again in its transcript; a hook failure is a transcript
  notice; once it runs, the provider's client and the journal's encoders are warmed up off
  the launch path (:data:`WARM_UP_DELAY`). Exit status 0, or 128 + the signal that ended it.
* :class:`Lines`: line mode (asks/surfaces/line.py, imported only for it). A hook failure is
  one line on stderr. Exit status 0, or 130 after a second Ctrl+C.

:func:`run_headless` is ``asks -p``: one turn, no UI (asks/surfaces/headless.py).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import trio

from asks.agent.hints import LINE_HINTS, AnswerHints
from asks.agent.loop import Agent, Model
from asks.agent.transcript import EntryKind
from asks.cli import startup
from asks.cli.journal import UsageError, check_resumable, open_journal
from asks.cli.journal import resume_hint as journal_hint
from asks.cli.readconfig import config_notice
from asks.config import Config
from asks.core import diagnostics
from asks.core.extras import Extra, MissingExtraError, require
from asks.core.gcpause import paused_gc
from asks.core.i18n import _
from asks.core.space import PanelSpace
from asks.store.entries import SessionMode, warm_up_encoders
from asks.widgets.app import Session, WebOptions, run_repl
from asks.widgets.hints import panel_hints
from asks.widgets.keymap import Keymap

if TYPE_CHECKING:
    import argparse
    from types import ModuleType

    from asks.agent.loop import TurnOutcome
    from asks.store.journal import Journal

WARM_UP_DELAY = 1.0  # seconds after start before httpx is imported in the background


class Surface(Protocol):
    """Where the person meets the session (module docstring)."""

    @property
    def hints(self) -> AnswerHints:
        """How the person answers there (its keys), for what the model is told."""

    @property
    def warms_up(self) -> bool:
        """Whether the provider's client and the encoders are warmed up once it runs."""

    def prepare(self, session: Session) -> None:
        """Before the session runs (the journal is open)."""

    def report(self, session: Session) -> Callable[[str], None]:
        """Where a hook failure is said."""

    async def serve(
        self,
        session: Session,
        *,
        opening_turn: bool,
        shown: Callable[[], object],
        listening: trio.Event,
    ) -> int:
        """Run until the person leaves; the exit status. ``shown`` is called once the person
        sees the session (the first frame; in line mode at once): the hub starts then, and
        ``listening`` is set once the transcript says where it listens (at once without a
        hub). Line mode prompts only after that: a prompt printed before the hub's line
        would be left alone above it."""


@attrs.frozen
class Screen:
    """The full-screen REPL with ``keymap``; ``warnings``: the config's, already on stderr."""

    keymap: Keymap
    web: WebOptions
    warnings: Sequence[str] = ()
    space: PanelSpace | None = None  # the panel's share of the screen (``[ui] panel_share``)
    warms_up = True

    @property
    def hints(self) -> AnswerHints:
        return panel_hints(self.keymap)

    def prepare(self, session: Session) -> None:
        for warning in self.warnings:  # printed before the screen took over: said in it too
            session.transcript.add(EntryKind.NOTICE, config_notice(warning))

    def report(self, session: Session) -> Callable[[str], None]:
        def notice(text: str) -> None:
            session.transcript.add(EntryKind.NOTICE, text)

        return notice

    async def serve(
        self,
        session: Session,
        *,
        opening_turn: bool,
        shown: Callable[[], object],
        listening: trio.Event,
    ) -> int:
        ended = await run_repl(
            session,
            self.keymap,
            opening_turn=opening_turn,
            web=self.web,
            on_first_frame=shown,
            space=self.space,
        )
        return 0 if ended is None else 128 + ended  # the signal that ended it (SIGTERM, SIGHUP)


def screen(
    args: argparse.Namespace,
    keymap: Keymap,
    warnings: Sequence[str],
    space: PanelSpace | None = None,
) -> Screen:
    """The REPL for ``args``; a ``--web`` bind beyond this machine is warned about now, on
    stderr, before the screen hides it."""
    if args.web:
        needs(Extra.WEB, "asks --web")
        from asks.surfaces.web_bind import binding_warning  # noqa: PLC0415 (only for --web)

        if (warning := binding_warning(args.web_host)) is not None:
            print(warning, file=sys.stderr)
    web = WebOptions(args.web_host, args.web_port, start=args.web)
    return Screen(keymap, web, warnings, space)


@attrs.frozen
class Lines:
    """Line mode; with ``web`` (host, port) the web bridge beside it. Config warnings were
    printed on stderr already."""

    web: tuple[str, int] | None = None
    hints: AnswerHints = LINE_HINTS
    warms_up = False

    def prepare(self, session: Session) -> None:
        pass

    def report(self, session: Session) -> Callable[[str], None]:
        return _stderr_notice

    async def serve(
        self,
        session: Session,
        *,
        opening_turn: bool,
        shown: Callable[[], object],
        listening: trio.Event,
    ) -> int:
        from asks.surfaces import line  # noqa: PLC0415 — the full-screen REPL never needs it

        shown()
        await listening.wait()  # the hub's line first, then the first prompt

        bridge = None
        if self.web is not None:  # hypercorn loads only for --web
            from asks.surfaces.web import WebBridge  # noqa: PLC0415

            bridge = WebBridge(session.host.surface_port, *self.web)
        ended = await line.serve(
            session.host.panel_port,
            session.agent,
            session.transcript,
            session.broker,
            opening_turn=opening_turn,
            web=bridge,
        )
        return ended.status


def lines(args: argparse.Namespace) -> Lines:
    """Line mode for ``args``."""
    if args.web:
        needs(Extra.WEB, "asks --web")
    return Lines((args.web_host, args.web_port) if args.web else None)


def run_session(args: argparse.Namespace, data_dir: Path, config: Config, surface: Surface) -> int:
    """The session ``args`` ask for, on ``surface`` (module docstring); its exit status."""
    mode = SessionMode.HUB if args.command == "hub" else SessionMode.INTERACTIVE
    check_resumable(args, data_dir, mode)  # a refused resume binds no port
    hub = hub_plan(args, config, data_dir)  # before anything is written: a busy port
    with paused_gc():  # a resume builds ~10⁵ long-lived objects: no young collections over them
        journal, session, resumed = start_session(args, data_dir, config, hub, surface.hints)
    with journal:
        surface.prepare(session)
        gc.freeze()  # the replayed state is long-lived: full collections need not rescan it
        model = model_of(session)

        async def main() -> int:
            async with trio.open_nursery() as nursery:
                if surface.warms_up:
                    warm_up: Callable[[], Any] | None = getattr(model, "warm_up", None)
                    if warm_up is not None:
                        nursery.start_soon(_warm_up_later, warm_up)
                    nursery.start_soon(_warm_up_later, warm_up_encoders)
                    nursery.start_soon(_warm_up_later, warm_up_first_question)
                shown = trio.Event()  # the hub's server starts then (asks/cli/hub.py)
                listening = trio.Event()  # it said where it listens (set now without a hub)
                try:
                    hooks = running_hooks(session, config, surface.report(session))
                    async with hooks, running_hub(hub, session, shown, listening):
                        return await surface.serve(
                            session, opening_turn=not resumed, shown=shown.set, listening=listening
                        )
                finally:
                    nursery.cancel_scope.cancel()
                    await _close(model)

        status = trio.run(main)
    _tell_if_there(
        _("Session {id} saved. Resume it with: {command}").format(
            id=journal.session_id, command=resume_hint(args, journal.session_id)
        )
    )
    return status


def _tell_if_there(line: str) -> None:
    """Print ``line`` to the terminal, if it is still there: a closed terminal window ends the
    REPL as a hangup, and its output then fails (EIO); the session is saved all the same."""
    try:
        print(line, flush=True)
    except OSError:
        with contextlib.suppress(OSError):  # what is left in the buffer would fail at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def run_headless(args: argparse.Namespace, data_dir: Path, config: Config, prompt: str) -> int:
    """``asks -p``: one turn, no UI (asks/surfaces/headless.py)."""
    compose = agent_part()
    from asks.surfaces import headless  # noqa: PLC0415 (only for -p)

    with paused_gc(), usage_errors(compose):  # as for the REPL (run_session)
        journal, records, resumed, source = compose.open_session(
            args, data_dir, SessionMode.PRINT, config
        )
    with journal:
        with usage_errors(compose):
            session = compose.configured_session(
                journal,
                records,
                source,
                config,
                resumed=resumed,
                ui_attached=False,
                allow_commands=args.allow_commands,
            )
        agent = session.agent
        assert isinstance(agent, Agent)  # build_session's: the agent loop

        async def main() -> TurnOutcome:
            try:
                return await headless.run_prompt(agent, prompt)
            finally:
                await _close(agent.model)

        outcome = trio.run(main)
    status = headless.report(agent, outcome)
    print(
        _("asks: session {id} saved ({command})").format(
            id=journal.session_id, command=resume_hint(args, journal.session_id)
        ),
        file=sys.stderr,
    )
    return status


def start_session(
    args: argparse.Namespace,
    data_dir: Path,
    config: Config,
    hub: Any,
    hints: AnswerHints = LINE_HINTS,
) -> tuple[Journal, Session, bool]:
    """The journal, the session for the REPL or line mode and whether it was resumed: the
    agent's (asks/cli/session.py), or with ``asks hub`` one with no agent whose chat writes to
    the hub's agents (asks/cli/hub.py; ``hub`` is its plan). The agent loop's own modules —
    its models, the tour, its tools — are imported for the agent's session only."""
    if args.command != "hub":
        compose = agent_part()
        with usage_errors(compose):
            started: tuple[Journal, Session, bool] = compose.start_session(
                args, data_dir, config, hints
            )
        return started
    from asks.cli.hub import hub_session  # noqa: PLC0415 (the hub's modules load only for it)

    journal, records, resumed = open_journal(args, data_dir, SessionMode.HUB)
    try:
        return journal, hub_session(journal, records, hub, resumed=resumed), resumed
    except BaseException:
        journal.close()
        raise


def agent_part() -> ModuleType:
    """The agent's composition (asks/cli/session.py), imported with the launch's tricks
    (asks/cli/startup.py) when a session runs the agent loop: ``asks hub`` never loads it."""
    with startup.importing(part="agent"):
        from asks.cli import session  # noqa: PLC0415 (module docstring)

    return session


@contextlib.contextmanager
def usage_errors(compose: ModuleType) -> Iterator[None]:
    """The agent part's usage errors (a bad script, model choice or provider setting) as a
    :class:`UsageError` with the same sentence: one line and exit status 2 (asks/cli)."""
    try:
        yield
    except compose.USAGE_ERRORS as exc:
        raise UsageError(str(exc)) from exc


def model_of(session: Session) -> Model | None:
    """The session's model (``None`` in a hub session: no agent runs)."""
    return session.agent.model if isinstance(session.agent, Agent) else None


def resume_hint(args: argparse.Namespace, session_id: str) -> str:
    """The command that resumes ``session_id``, as typed (:func:`asks.cli.journal.resume_hint`)."""
    return journal_hint(args, session_id, hub=args.command == "hub")


def needs(extra: Extra, feature: str) -> None:
    """A :class:`UsageError` (one line, exit status 2: what to install) if ``feature`` is asked
    for without ``extra`` installed (asks/core/extras.py)."""
    try:
        require(extra, feature)
    except MissingExtraError as exc:
        raise UsageError(str(exc)) from None


def hub_plan(args: argparse.Namespace, config: Config, data_dir: Path) -> Any:
    """With the hub wanted (``--mcp``, ``[mcp] enabled``): its port bound and its token read,
    before the session starts (asks/cli/hub.py); ``None`` without it (nothing of it loads)."""
    if not (args.mcp or config.mcp.enabled):
        return None
    if args.command == "hub":
        needs(Extra.HUB, "asks hub")
    else:
        needs(Extra.HUB, "asks --mcp" if args.mcp else "[mcp] enabled")
    with startup.importing(part="hub"):  # the launch's tricks (asks/cli/startup.py)
        from asks.cli import hub  # noqa: PLC0415 (the hub's modules load only for the hub)

    return hub.prepare(args, config, data_dir)


def running_hub(
    plan: Any, session: Session, after: trio.Event, listening: trio.Event
) -> contextlib.AbstractAsyncContextManager[object]:
    """The hub serving ``session``'s host while the block runs (nothing without a plan: then
    ``listening`` is set at once), its server started once ``after`` is set (the surface
    shows the session), ``listening`` set once the transcript says where it listens."""
    if plan is None:
        listening.set()
        return contextlib.nullcontext()
    from asks.cli import hub  # noqa: PLC0415

    return hub.running(plan, session.host, session.transcript, after, listening)


def running_hooks(
    session: Session, config: Config, report: Callable[[str], None]
) -> contextlib.AbstractAsyncContextManager[object]:
    """The configured ``[hooks]`` running for the session (asks/surfaces/hooks.py, imported
    only when some are configured: launch cost); a hook failure goes to ``report``."""
    commands = config.hooks.commands()
    if not commands:
        return contextlib.nullcontext()
    from asks.surfaces import hooks  # noqa: PLC0415 — see the docstring

    return hooks.running(
        session.host.surface_port,
        session.host.session_id,
        commands,
        config.hooks.timeout,
        report=report,
    )


def _stderr_notice(text: str) -> None:
    """A hook failure in line mode: one line on stderr."""
    print(f"asks: {text}", file=sys.stderr, flush=True)


def warm_up_first_question() -> None:
    """What the first question on screen would otherwise load and compile between the
    model's tool call and the panel: the panel's drawing parts, the questions' briefs (the tab
    bar's chips), the sanitizer's and the reply edge's patterns (all left off the first frame,
    docs/architecture.md, "Launch")."""
    from asks import sanitize  # noqa: PLC0415
    from asks.agent import edge  # noqa: PLC0415
    from asks.core import brief  # noqa: F401, PLC0415
    from asks.widgets.panel import view  # noqa: PLC0415

    sanitize.warm_up()
    edge.warm_up()
    view.warm_up()


async def _warm_up_later(warm_up: Callable[[], Any]) -> None:
    """Once the REPL is up, off the launch path: the provider's client, the journal's encoders
    (:func:`warm_up_encoders`). A failure is left for the first use to report."""
    await trio.sleep(WARM_UP_DELAY)
    try:
        if isinstance(done := warm_up(), Awaitable):
            await done
    except Exception as exc:
        diagnostics.logger(__name__).debug("warm-up failed", exc_info=exc)


async def _close(model: Model | None) -> None:
    close: Callable[[], Any] | None = getattr(model, "aclose", None)
    if close is not None:
        await close()
