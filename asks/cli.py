"""Command-line entry: the composition root (the only module of ``asks`` that imports widgets).

``asks``                    start a new session running the built-in tour (scripted, offline)
``asks --script FILE``      … running a script file instead (format: asks/agent/scripted.py)
``asks --resume ID``        resume a session: pending questions come back, saved answers that
                            never reached the agent are delivered once
``asks --continue``         resume the most recent session
``asks --model NAME``       … talking to a real model: ``--provider openai`` (default; any
                            OpenAI-compatible server) or ``anthropic`` (Claude), ``--base-url
                            URL``; defaults from ``[model]`` in the config file
``--allow-commands``        with ``-p``: let the model's ``run_command`` run without asking
                            (else every command is denied: nobody is there to allow it)
``asks -p PROMPT``          one turn without UI, the answer on stdout (``-p -`` or a bare ``-p``:
                            the prompt is read from stdin); see asks/surfaces/headless.py
``asks sessions``           list sessions with their pending counts
``asks mcp config|token``   set up the hub for Claude Code, Codex, … (asks/hubcli.py); ``--mcp``
                            serves it from a session
``asks hub``                a session with no agent of its own, only the hub's: their questions,
                            and ``@name text`` notes to them (asks/agent/absent.py); ``--line``,
                            ``--resume ID`` as for any session (``asks hub --resume ID``)
``asks --line``             plain lines instead of the full screen (also without a terminal,
                            or with ``TERM=dumb``): asks/surfaces/line.py, terminal.py
``--data-dir DIR``          where sessions live (default: the XDG data dir)
``--debug-log FILE``        tracebacks of unexpected errors to FILE (or ``$ASKS_DEBUG_LOG``)
``--config FILE``           config file (default: $XDG_CONFIG_HOME/asks/config.toml)
``--locale CODE``           the person's language (de, en, es, fr, ja, pt, pt-BR, ru, uk, zh);
                            else ``[ui] locale``, then ``LC_ALL``/``LC_MESSAGES``/``LANG``

The composition root builds the one :class:`~asks.core.i18n.Translator` and runs everything
inside its scope (``/language`` switches it in place); what the model reads stays English.

Which model, and how a session records and resumes it: asks/agent/choice.py. Scripted models
get the simulated tools, real ones ``run_command`` (after permission), ``read_file`` and
``withdraw_question`` in the start directory (asks/agent/tools.py).

Bad flags, unknown sessions, unusable scripts and a missing API key for a remote server give
one clear line on stderr and a non-zero exit, and write nothing. A data dir that cannot be
written or read at start (not a directory, no permission, disk full) is one line saying what
failed and where, exit status 1, for the REPL, ``-p`` and ``sessions`` alike. Anything else is
a bug, never a usage error: with a debug log, one line naming it (the traceback is there) and
exit status 1; without one, Python's traceback.
"""

from __future__ import annotations

from asks.core.gcpause import paused_gc

with paused_gc():  # the imports build ~80k long-lived objects: no young collections over them
    import argparse
    import contextlib
    import functools
    import gc
    import os
    import sys
    from collections.abc import Awaitable, Callable, Mapping, Sequence
    from pathlib import Path
    from typing import Any

    import attrs
    import trio

    from asks.agent.choice import (
        ChoiceError,
        Configured,
        Wanted,
        allow_all,
        build_model,
        choose,
        last_choice,
        program_words,
        record_of,
        resume_command,
    )
    from asks.agent.hints import LINE_HINTS, AnswerHints
    from asks.agent.loop import Agent, Model, Tool, TurnOutcome, context_from_journal
    from asks.agent.prompts import PromptBroker
    from asks.agent.provider import Settings, SettingsError
    from asks.agent.scripted import Script, ScriptError
    from asks.agent.tools import real_tools, scripted_tools
    from asks.agent.transcript import EntryKind, Transcript
    from asks.cliargs import build_parser
    from asks.cliconfig import config_notice, keymap_from, read_config
    from asks.clijournal import (
        StartupError,
        UsageError,
        open_journal,
        resume_id,
        storage_problem,
    )
    from asks.config import Config
    from asks.contract import DEFAULT_GUIDANCE, Guidance
    from asks.core import diagnostics, i18n
    from asks.core.i18n import _
    from asks.host.host import QuestionHost
    from asks.hub.listen import HubPortBusyError
    from asks.store.entries import (
        ModelChosen,
        Record,
        SessionMode,
        warm_up_encoders,
    )
    from asks.store.files import InvalidSessionId
    from asks.store.journal import (
        Journal,
        SessionLocked,
        SessionNotFound,
        StorageError,
        default_data_dir,
    )
    from asks.surfaces import headless
    from asks.surfaces.terminal import line_mode_wanted
    from asks.widgets.app import Session, WebOptions, run_repl
    from asks.widgets.hints import panel_hints
    from asks.widgets.keymap import Keymap

EXIT_USAGE = 2
EXIT_STORAGE = 1
EXIT_BUG = 1  # an unexpected error, as Python's own exit status for one
WARM_UP_DELAY = 1.0  # seconds after start before httpx is imported in the background
RESTARTED = "the session was restarted before this tool finished"  # a resumed, unfinished call


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words[:1] == ["mcp"]:  # asks mcp config|token: asks/hubcli.py
        from asks import hubcli  # noqa: PLC0415 (the hub's modules load only for the hub)

        return hubcli.mcp_main(words[1:])
    args = build_parser().parse_args(words)
    translator = i18n.Translator(i18n.choose_language(args.locale, None, os.environ))
    with i18n.use(translator):
        try:
            log = diagnostics.open_requested(args.debug_log, os.environ)
        except diagnostics.DebugLogError as exc:
            print(f"asks: {exc}", file=sys.stderr)
            return EXIT_USAGE
        try:
            return dispatch(args, translator)
        except Exception as exc:  # a bug: with a debug log, one line and the traceback there
            if log is None:
                raise  # Python prints the traceback: without a log it is the only trace
            line = diagnostics.unexpected(exc, __name__, "asks stopped")
            print(_("asks: unexpected error: {error}").format(error=line), file=sys.stderr)
            return EXIT_BUG
        finally:
            if log is not None:
                log.close()


def dispatch(args: argparse.Namespace, translator: i18n.Translator) -> int:
    """Run what the arguments ask for, in the person's language (``[ui] locale`` is known once
    the config is read)."""
    data_dir = args.data_dir or default_data_dir()
    try:
        if args.command == "sessions":
            return print_sessions(data_dir)
        warnings: list[str] = []  # also shown in the REPL, where stderr is hidden
        config = read_config(args.config, warnings)
        translator.switch(i18n.choose_language(args.locale, config.ui.locale, os.environ))
        if args.command == "hub":  # the hub is on; flags about a model have nothing to do
            from asks.hubcli import model_flag  # noqa: PLC0415 (loads only for the hub)

            if (flag := model_flag(args)) is not None:
                raise UsageError(
                    _("asks hub runs no agent of its own: drop {flag}").format(flag=flag)
                )
            args.mcp = True
        prompt = read_prompt(args.prompt) if args.prompt is not None else None
        if prompt is not None:
            return run_headless(args, data_dir, config, prompt)
        if args.allow_commands:
            raise UsageError(
                _("--allow-commands is only for -p (the REPL asks before each command)")
            )
        if line_mode_wanted(args.line, os.environ, sys.stdin, sys.stdout):
            return run_line(args, data_dir, config)
        keymap = keymap_from(config, warnings)
        return run(args, data_dir, config, keymap, warnings=warnings)
    except SessionNotFound:
        print(
            _("asks: no session {id} in {dir} (list them: asks sessions)").format(
                id=repr(args.resume), dir=data_dir
            ),
            file=sys.stderr,
        )
        return EXIT_USAGE
    except (
        UsageError,
        ScriptError,
        ChoiceError,
        SettingsError,
        InvalidSessionId,
        SessionLocked,
        HubPortBusyError,
    ) as exc:
        print(f"asks: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except StartupError as exc:
        print(f"asks: {exc}", file=sys.stderr)
        return EXIT_STORAGE


def print_sessions(data_dir: Path) -> int:
    """``asks sessions``: a table with a header (asks/surfaces/listing.py)."""
    from asks.surfaces import listing  # noqa: PLC0415 — only for this command

    try:
        rows = listing.session_rows(data_dir)
    except OSError as exc:
        raise storage_problem(_("list the sessions in {dir}").format(dir=data_dir), exc) from exc
    if not rows:
        print(_("No sessions in {dir}.").format(dir=data_dir))
        return 0
    print("\n".join(listing.table(rows)))
    return 0


def model_source(
    args: argparse.Namespace,
    config: Config,
    env: Mapping[str, str],
    recorded: ModelChosen | None = None,
) -> Script | Settings:
    """The script to play or the provider settings to use (module docstring)."""
    wanted = Wanted(args.script, args.provider, args.model, args.base_url)
    return choose(wanted, Configured(**attrs.asdict(config.model)), recorded, env)


def read_prompt(value: str) -> str:
    """``-p TEXT`` is the prompt; ``-p -`` (or a bare ``-p``) reads it from stdin to EOF."""
    text = sys.stdin.read().rstrip("\n") if value == "-" else value
    if not text.strip():
        raise UsageError(_("the prompt is empty"))
    return text


def open_session(
    args: argparse.Namespace, data_dir: Path, mode: SessionMode, config: Config
) -> tuple[Journal, list[Record], bool, Script | Settings]:
    """The journal, its records, whether resumed, and the model: a new session's is settled
    before anything is written, a resumed one's from its record; journaled when it changed."""
    source = None if resume_id(args, data_dir) else model_source(args, config, os.environ)
    journal, records, resumed = open_journal(args, data_dir, mode)
    try:
        if source is None:
            source = model_source(args, config, os.environ, last_choice(records))
        chosen = record_of(source)
        if last_choice(records) != chosen:
            records.append(journal.append(chosen))
    except StorageError as exc:
        journal.close()
        what = _("write to session {id} in {dir}").format(id=repr(journal.session_id), dir=data_dir)
        raise storage_problem(what, exc) from exc
    except BaseException:
        journal.close()
        raise
    return journal, records, resumed, source


def resume_hint(args: argparse.Namespace, session_id: str) -> str:
    program = program_words(sys.argv[0], sys.executable)  # as typed: `asks` may not be on PATH
    if args.command == "hub":
        program += ["hub"]
        if args.mcp_port is not None:
            program += ["--mcp-port", str(args.mcp_port)]
    return resume_command(session_id, args.data_dir, args.config, program)


def start_session(
    args: argparse.Namespace,
    data_dir: Path,
    config: Config,
    hub: Any,
    hints: AnswerHints = LINE_HINTS,
) -> tuple[Journal, Session, bool]:
    """The journal, the session for the REPL or line mode and whether it was resumed: the
    agent's, or with ``asks hub`` one with no agent whose chat writes to the hub's agents
    (asks/hubcli.py)."""
    build: Callable[[], Session]
    if args.command == "hub":
        from asks import hubcli  # noqa: PLC0415 (the hub's modules load only for the hub)

        journal, records, resumed = open_journal(args, data_dir, SessionMode.HUB)
        build = functools.partial(hubcli.hub_session, journal, records, hub, resumed=resumed)
    else:
        journal, records, resumed, source = open_session(
            args, data_dir, SessionMode.INTERACTIVE, config
        )
        build = functools.partial(
            build_session,
            journal,
            records,
            source,
            resumed=resumed,
            guidance=config.guidance,
            hints=hints,
            command_timeout=config.tools.command_timeout,
        )
    try:
        return journal, build(), resumed
    except BaseException:
        journal.close()
        raise


def model_of(session: Session) -> Model | None:
    """The session's model (``None`` in a hub session: no agent runs)."""
    return session.agent.model if isinstance(session.agent, Agent) else None


def run(
    args: argparse.Namespace,
    data_dir: Path,
    config: Config,
    keymap: Keymap,
    *,
    warnings: Sequence[str] = (),
) -> int:
    web = WebOptions(args.web_host, args.web_port, start=args.web)
    if args.web and args.web_host not in ("127.0.0.1", "localhost", "::1"):
        from asks.surfaces.web import binding_warning  # noqa: PLC0415 (hypercorn loads only for --web)

        print(binding_warning(args.web_host) or "", file=sys.stderr)
    hub = hub_plan(args, config, data_dir)  # before anything is written: a busy port
    journal, session, resumed = start_session(args, data_dir, config, hub, panel_hints(keymap))
    with journal:
        for warning in warnings:  # printed before the screen took over: say them in it too
            session.transcript.add(EntryKind.NOTICE, config_notice(warning))
        gc.freeze()  # the replayed state is long-lived: full collections need not rescan it
        model = model_of(session)

        def notice(text: str) -> None:  # a hook failed
            session.transcript.add(EntryKind.NOTICE, text)

        async def main() -> int | None:  # the signal that ended the REPL (SIGTERM, SIGHUP)
            async with trio.open_nursery() as nursery:
                warm_up: Callable[[], Any] | None = getattr(model, "warm_up", None)
                if warm_up is not None:
                    nursery.start_soon(_warm_up_later, warm_up)
                nursery.start_soon(_warm_up_later, warm_up_encoders)
                try:
                    async with running_hooks(session, config, notice), running_hub(hub, session):
                        return await run_repl(session, keymap, opening_turn=not resumed, web=web)
                finally:
                    nursery.cancel_scope.cancel()
                    await _close(model)

        ended = trio.run(main)
    print(
        _("Session {id} saved. Resume it with: {command}").format(
            id=journal.session_id, command=resume_hint(args, journal.session_id)
        )
    )
    return 0 if ended is None else 128 + ended


def run_line(args: argparse.Namespace, data_dir: Path, config: Config) -> int:
    """Line mode (asks/surfaces/line.py): the same session as plain lines; exit 0, or 130
    after a second Ctrl+C. Config warnings were printed on stderr already."""
    from asks.surfaces import line  # noqa: PLC0415 — the full-screen REPL never needs it

    hub = hub_plan(args, config, data_dir)
    journal, session, resumed = start_session(args, data_dir, config, hub)
    with journal:
        gc.freeze()

        async def main() -> line.Exit:
            web = None
            if args.web:  # hypercorn loads only for --web
                from asks.surfaces.web import WebBridge  # noqa: PLC0415

                web = WebBridge(session.host.surface_port, args.web_host, args.web_port)
            try:
                hooks = running_hooks(session, config, _stderr_notice)
                async with hooks, running_hub(hub, session):
                    return await line.serve(
                        session.host.panel_port,
                        session.agent,
                        session.transcript,
                        session.broker,
                        opening_turn=not resumed,
                        web=web,
                    )
            finally:
                await _close(model_of(session))

        ended = trio.run(main)
    print(
        _("Session {id} saved. Resume it with: {command}").format(
            id=journal.session_id, command=resume_hint(args, journal.session_id)
        ),
        flush=True,
    )
    return ended.status


def hub_plan(args: argparse.Namespace, config: Config, data_dir: Path) -> Any:
    """With the hub wanted (``--mcp``, ``[mcp] enabled``): its port bound and its token read,
    before the session starts (asks/hubcli.py); ``None`` without it (nothing of it loads)."""
    if not (args.mcp or config.mcp.enabled):
        return None
    from asks import hubcli  # noqa: PLC0415 (the hub's modules load only for the hub)

    return hubcli.prepare(args, config, data_dir)


def running_hub(plan: Any, session: Session) -> contextlib.AbstractAsyncContextManager[object]:
    """The hub serving ``session``'s host while the block runs (nothing without a plan)."""
    if plan is None:
        return contextlib.nullcontext()
    from asks import hubcli  # noqa: PLC0415

    return hubcli.running(plan, session.host, session.transcript)


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
        session.host.journal.session_id,
        commands,
        config.hooks.timeout,
        report=report,
    )


def _stderr_notice(text: str) -> None:
    """A hook failure in line mode: one line on stderr."""
    print(f"asks: {text}", file=sys.stderr, flush=True)


def run_headless(args: argparse.Namespace, data_dir: Path, config: Config, prompt: str) -> int:
    """``asks -p``: one turn, no UI (asks/surfaces/headless.py)."""
    journal, records, resumed, source = open_session(args, data_dir, SessionMode.PRINT, config)
    with journal:
        session = build_session(
            journal,
            records,
            source,
            resumed=resumed,
            guidance=config.guidance,
            ui_attached=False,
            command_timeout=config.tools.command_timeout,
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


def build_session(
    journal: Journal,
    records: Sequence[Record],
    source: Script | Settings,
    *,
    resumed: bool,
    guidance: Guidance = DEFAULT_GUIDANCE,
    ui_attached: bool = True,
    command_timeout: float | None = None,
    allow_commands: bool = False,
    hints: AnswerHints = LINE_HINTS,
) -> Session:
    """Host, agent, transcript and prompt broker for a new or resumed session. Without a UI
    the host answers ask calls with ``no_ui`` and permission prompts are denied (allowed with
    ``allow_commands``). Tools: module docstring (``command_timeout``: ``run_command``'s own
    default when ``None``). ``hints``: how the person answers on the surface (its keys)."""
    host = QuestionHost(journal, records, clock=trio.current_time, ui_attached=ui_attached)
    transcript = Transcript()
    messages = context_from_journal(host.projection.conversation)
    model = build_model(source, guidance, seen=len(messages), hints=hints)
    if resumed:  # the visible chat rebuilt from the journal; only now imported (launch cost)
        from asks.agent.replay import replay_session  # noqa: PLC0415

        replay_session(transcript, host, model.name, unfinished=RESTARTED, hints=hints)
    broker = PromptBroker(host.panel_port)
    tools: list[Tool] = (
        scripted_tools() if isinstance(source, Script) else real_tools(Path.cwd(), command_timeout)
    )
    confirm = broker.confirm if ui_attached else allow_all if allow_commands else headless.deny
    agent = Agent(
        host.agent_port,
        model,
        tools,
        transcript,
        confirm,
        messages=messages,
        guidance=guidance,
        hints=hints,
    )
    if resumed:
        agent.close_open_calls(RESTARTED)
    return Session(host, agent, transcript, broker)
