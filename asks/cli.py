"""Command-line entry: the composition root (the only module of ``asks`` that imports widgets).

``asks``                    start a new session running the built-in tour (scripted, offline)
``asks --script FILE``      … running a script file instead (format: asks/scripted.py)
``asks --resume ID``        resume a session: pending questions come back, saved answers that
                            never reached the agent are delivered once
``asks --continue``         resume the most recent session
``asks sessions``           list sessions with their pending counts
``--data-dir DIR``          where sessions live (default: the XDG data dir)
``--config FILE``           config file (default: $XDG_CONFIG_HOME/asks/config.toml)

Bad flags, unknown sessions and unusable scripts give one clear line on stderr and a non-zero
exit, and write nothing.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from pathlib import Path

import trio

from asks import __version__
from asks.agent import Agent, Tool, context_from_journal, result_summary
from asks.config import load_config, with_key_fallbacks
from asks.contract import ResultEnvelope
from asks.entries import ChatMessage, FeedbackDelivered, Record, ToolResult
from asks.host import QuestionHost
from asks.journal import (
    Journal,
    SessionLocked,
    SessionNotFound,
    default_data_dir,
    list_sessions,
    read_records,
)
from asks.projection import Projection
from asks.prompts import PromptBroker
from asks.scripted import Script, ScriptedModel, ScriptError, builtin_tour, load_script
from asks.tools import CommandTool, WorkTool
from asks.transcript import EntryKind, Transcript
from widgets.app import Session, run_repl
from widgets.keymap import Keymap, build_keymap, parse_key_spec

EXIT_USAGE = 2


class UsageError(Exception):
    """A problem with what the person asked for; printed as one line."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="asks",
        description="A chat REPL whose agent asks you questions without blocking you.",
    )
    parser.add_argument("--version", action="version", version=f"asks {__version__}")
    parser.add_argument("--script", type=Path, metavar="FILE", help="run a script file")
    parser.add_argument("--data-dir", type=Path, metavar="DIR", help="where sessions are kept")
    parser.add_argument("--config", type=Path, metavar="FILE", help="config file to read")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--resume", metavar="ID", help="resume the session ID")
    group.add_argument(
        "--continue", dest="cont", action="store_true", help="resume the most recent session"
    )
    parser.add_argument(
        "command", nargs="?", choices=["sessions"], help="'sessions' lists the sessions"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    data_dir = args.data_dir or default_data_dir()
    try:
        if args.command == "sessions":
            return print_sessions(data_dir)
        script = load_script(args.script) if args.script else builtin_tour()
        return run(args, data_dir, script)
    except SessionNotFound:
        print(f"asks: no session {args.resume!r} in {data_dir} (list them: asks sessions)",
              file=sys.stderr)
        return EXIT_USAGE
    except (UsageError, ScriptError, SessionLocked, ValueError) as exc:
        print(f"asks: {exc}", file=sys.stderr)
        return EXIT_USAGE


def print_sessions(data_dir: Path) -> int:
    sessions = list_sessions(data_dir)
    if not sessions:
        print(f"No sessions in {data_dir}.")
        return 0
    for info in sessions:
        projection = Projection()
        projection.apply_all(read_records(info.session_id, data_dir=data_dir))
        print(
            f"{info.session_id}  {len(projection.pending)} pending  "
            f"{len(projection.undelivered)} saved, not yet delivered"
        )
    return 0


def run(args: argparse.Namespace, data_dir: Path, script: Script) -> int:
    keymap = load_keymap(args.config)
    session_id = resume_id(args, data_dir)
    records: list[Record] = []
    if session_id is None:
        journal = Journal.create(data_dir=data_dir)
    else:
        journal, records = Journal.open(session_id, data_dir=data_dir)
    with journal:
        session = build_session(journal, records, script, resumed=session_id is not None)
        gc.freeze()  # the replayed state is long-lived: full collections need not rescan it
        trio.run(lambda: run_repl(session, keymap, opening_turn=session_id is None))
    print(f"Session {journal.session_id} saved. Resume it with: asks --resume {journal.session_id}")
    return 0


def load_keymap(config_path: Path | None) -> Keymap:
    """The keymap from the config file; bad settings give one warning each and defaults."""
    config, warnings = load_config(config_path)
    config, key_warnings = with_key_fallbacks(config, parse_key_spec)
    for warning in [*warnings, *key_warnings]:
        print(warning, file=sys.stderr)
    try:
        return build_keymap(config.keys.focus_toggle_key, config.keys.collapse_key)
    except ValueError as exc:  # e.g. a key that clashes with another binding
        print(f"asks: {config.path}: {exc}; using the default keys", file=sys.stderr)
        return build_keymap()


def resume_id(args: argparse.Namespace, data_dir: Path) -> str | None:
    if args.resume:
        return str(args.resume)
    if args.cont:
        sessions = list_sessions(data_dir)
        if not sessions:
            raise UsageError(f"no session to continue in {data_dir}")
        return sessions[0].session_id
    return None


def build_session(
    journal: Journal, records: Sequence[Record], script: Script, *, resumed: bool
) -> Session:
    """Host, agent, transcript and prompt broker for a new or resumed session."""
    host = QuestionHost(journal, records, clock=trio.current_time)
    transcript = Transcript()
    messages = context_from_journal(host.projection.conversation)
    model = ScriptedModel(script, seen=len(messages))
    if resumed:
        replay_transcript(transcript, host, model.name)
    broker = PromptBroker(host)
    tools: list[Tool] = [WorkTool(), CommandTool()]
    agent = Agent(host, model, tools, transcript, broker.confirm, messages=messages)
    if resumed:
        agent.close_open_calls("the session was restarted before this tool finished")
    return Session(host, agent, transcript, broker)


def replay_transcript(transcript: Transcript, host: QuestionHost, model_name: str) -> None:
    """Rebuild the visible chat from the journal's conversation records."""
    for record in host.projection.conversation:
        entry = record.entry
        if isinstance(entry, ChatMessage) and entry.role in ("user", "assistant"):
            if entry.content:
                if entry.role == "user":
                    transcript.add(EntryKind.USER, entry.content)
                else:
                    transcript.add(EntryKind.AGENT, entry.content, model_name)
        elif isinstance(entry, ToolResult):
            envelope = ResultEnvelope(entry.outcome, entry.text, entry.details)
            transcript.add(EntryKind.RESULT, result_summary(envelope), entry.outcome.value)
        elif isinstance(entry, FeedbackDelivered):
            transcript.add(EntryKind.FEEDBACK, entry.text, entry.mode)
    stats = host.statistics()
    transcript.add(
        EntryKind.NOTICE,
        f"Resumed session {host.journal.session_id}: {stats.pending} pending, "
        f"{stats.saved_undelivered} saved answers to deliver.",
    )
