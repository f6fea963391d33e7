"""Command-line entry: the composition root (the only package of ``asks`` that imports widgets).

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
``asks sessions rm ID…``    remove sessions; ``asks sessions --prune AGE`` those last used more
                            than AGE (``30d``) ago; never one that is open, nor one with pending
                            questions or undelivered answers without ``--force`` (it says so)
``asks mcp config|token``   set up the hub for Claude Code, Codex, … (asks/cli/hub.py); ``--mcp``
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

The package: this module reads the command and dispatches it; :mod:`asks.cli.args` is the
grammar, :mod:`asks.cli.readconfig` the config file and keymap as read here,
:mod:`asks.cli.journal` which journal a command opens (and the one-line errors),
:mod:`asks.cli.session` the composition of a session (which model, and how a session records
and resumes it: asks/agent/choice.py; which tools), :mod:`asks.cli.run` running it on the full
screen or as lines (one composition) or ``-p``, :mod:`asks.cli.hub` the hub's part.

Bad flags, unknown sessions, unusable scripts and a missing API key for a remote server give
one clear line on stderr and a non-zero exit, and write nothing. A data dir that cannot be
written or read at start (not a directory, no permission, disk full) is one line saying what
failed and where, exit status 1, for the REPL, ``-p`` and ``sessions`` alike. Anything else is
a bug, never a usage error: with a debug log, one line naming it (the traceback is there) and
exit status 1; without one, Python's traceback.
"""

from __future__ import annotations

from asks.cli import startup

with startup.importing():  # the launch's tricks, each with its switch (asks/cli/startup.py)
    import os
    import sys
    from collections.abc import Sequence
    from pathlib import Path
    from typing import TYPE_CHECKING

    from asks.cli import run
    from asks.cli.args import parse_args
    from asks.cli.journal import StartupError, UsageError, storage_problem
    from asks.cli.readconfig import keymap_from, read_config
    from asks.core import diagnostics, i18n
    from asks.core.i18n import _
    from asks.core.space import PanelSpace
    from asks.hub.listen import HubPortBusyError
    from asks.store.files import InvalidSessionId
    from asks.store.journal import SessionLocked, SessionNotFound, default_data_dir
    from asks.surfaces.terminal import line_mode_wanted

if TYPE_CHECKING:
    import argparse

EXIT_USAGE = 2
EXIT_STORAGE = 1
EXIT_BUG = 1  # an unexpected error, as Python's own exit status for one
EXIT_BROKEN_PIPE = 1  # the output's reader went away


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: the process's); its exit status. Output whose
    reader went away (``asks sessions | head -1``) ends the command quietly with status 1."""
    try:
        status = _main(argv)
        sys.stdout.flush()  # a broken pipe shows here, not at exit
    except BrokenPipeError:
        # Python's documented recipe (the signal module, "Note on SIGPIPE"): the rest of the
        # output goes nowhere, so that the flush at exit raises nothing either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return status


def _main(argv: Sequence[str] | None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words[:1] == ["hook"]:  # asks hook permission: asks/cli/hook.py (a client runs it)
        from asks.cli.hook import hook_main  # noqa: PLC0415

        return hook_main(words[1:])
    mcp_words = mcp_command(words)
    if mcp_words is not None:  # asks mcp config|token: asks/cli/hub.py
        from asks.cli.hub import mcp_main  # noqa: PLC0415 (the hub's modules load only for it)

        return mcp_main(mcp_words)
    args = parse_args(words)
    translator = i18n.Translator(i18n.choose_language(args.locale, None, os.environ))
    with i18n.use(translator):
        try:
            log = diagnostics.open_requested(args.debug_log, os.environ)
        except diagnostics.DebugLogError as exc:
            print(f"asks: {exc}", file=sys.stderr)
            return EXIT_USAGE
        try:
            return dispatch(args, translator)
        except BrokenPipeError:
            raise  # not a bug: main ends quietly
        except Exception as exc:  # a bug: with a debug log, one line and the traceback there
            if log is None:
                raise  # Python prints the traceback: without a log it is the only trace
            line = diagnostics.unexpected(exc, __name__, "asks stopped")
            print(_("asks: unexpected error: {error}").format(error=line), file=sys.stderr)
            return EXIT_BUG
        finally:
            if log is not None:
                log.close()


MCP_SHARED_FLAGS = ("--data-dir", "--config")  # flags ``asks mcp`` takes before ``mcp`` too


def mcp_command(words: Sequence[str]) -> list[str] | None:
    """The words for ``asks mcp …`` if ``words`` is one (``mcp`` first, or after
    ``--data-dir DIR`` / ``--config FILE``, which then go to the subcommand), else ``None``."""
    leading: list[str] = []
    rest = list(words)
    while rest and rest[0].split("=", 1)[0] in MCP_SHARED_FLAGS:
        taken = 1 if "=" in rest[0] else 2
        leading += rest[:taken]
        rest = rest[taken:]
    if rest[:1] != ["mcp"]:
        return None
    return [*rest[1:], *leading]


def dispatch(args: argparse.Namespace, translator: i18n.Translator) -> int:
    """Run what the arguments ask for, in the person's language (``[ui] locale`` is known once
    the config is read)."""
    data_dir = args.data_dir or default_data_dir()
    try:
        if args.command == "sessions":
            return sessions_command(args, data_dir)
        if args.words or args.prune is not None or args.force:
            raise UsageError(_("rm ID, --prune and --force are for 'asks sessions'"))
        warnings: list[str] = []  # also shown in the REPL, where stderr is hidden
        config = read_config(args.config, warnings)
        translator.switch(i18n.choose_language(args.locale, config.ui.locale, os.environ))
        if args.command == "hub":  # the hub is on; flags about a model have nothing to do
            with startup.importing(part="hub"):  # as asks.cli.run.hub_plan
                from asks.cli.hub import model_flag  # noqa: PLC0415 (loads only for the hub)

            if (flag := model_flag(args)) is not None:
                raise UsageError(
                    _("asks hub runs no agent of its own: drop {flag}").format(flag=flag)
                )
            args.mcp = True
        prompt = read_prompt(args.prompt) if args.prompt is not None else None
        if prompt is not None:
            return run.run_headless(args, data_dir, config, prompt)
        if args.allow_commands:
            raise UsageError(
                _("--allow-commands is only for -p (the REPL asks before each command)")
            )
        surface: run.Surface
        if line_mode_wanted(args.line, os.environ, sys.stdin, sys.stdout):
            surface = run.lines(args)
        else:
            space = PanelSpace(config.ui.panel_share)
            surface = run.screen(args, keymap_from(config, warnings), warnings, space)
        return run.run_session(args, data_dir, config, surface)
    except SessionNotFound:
        print(
            _("asks: no session {id} in {dir} (list them: asks sessions)").format(
                id=repr(args.resume), dir=data_dir
            ),
            file=sys.stderr,
        )
        return EXIT_USAGE
    except (UsageError, InvalidSessionId, SessionLocked, HubPortBusyError) as exc:
        print(f"asks: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except StartupError as exc:
        print(f"asks: {exc}", file=sys.stderr)
        return EXIT_STORAGE


def sessions_command(args: argparse.Namespace, data_dir: Path) -> int:
    """``asks sessions`` lists; with ``rm ID…`` or ``--prune AGE`` it removes
    (asks/cli/prune.py)."""
    if not args.words and args.prune is None:
        if args.force:
            raise UsageError(_("--force is for 'asks sessions rm ID' or '--prune AGE'"))
        return print_sessions(data_dir)
    from asks.cli.prune import remove_command  # noqa: PLC0415 — only for this command

    return remove_command(list(args.words), args.prune, data_dir, force=args.force)


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


def read_prompt(value: str) -> str:
    """``-p TEXT`` is the prompt; ``-p -`` (or a bare ``-p``) reads it from stdin to EOF."""
    text = sys.stdin.read().rstrip("\n") if value == "-" else value
    if not text.strip():
        raise UsageError(_("the prompt is empty"))
    return text
