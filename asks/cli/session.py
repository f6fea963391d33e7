"""Composing a session: the journal, the model and everything that runs on them.

* :func:`open_session`: the journal (new or resumed) with its records and the model source —
  a new session's model is settled before anything is written, a resumed one's comes from its
  record (asks/agent/choice.py), journaled when it changed.
* :func:`start_session`: the agent's session the REPL and line mode run (``asks hub`` runs
  one with no agent: asks/cli/run.py, asks/cli/hub.py).
* :func:`build_session`: host, agent, transcript and prompt broker for a new or resumed
  session. Scripted models get the simulated tools, real ones ``run_command`` (after
  permission), ``read_file`` and ``withdraw_question`` in the start directory
  (asks/agent/tools.py). Resumed, the visible chat is rebuilt from the journal and a tool call
  the restart cut off is closed with :data:`RESTARTED`.

Whatever fails after the journal is open closes it again before the error goes up. This
module and the agent loop's own modules it imports (the models, the tour, the tools) load for
a session with the agent only (asks/cli/run.py, ``agent_part``): never for ``asks hub``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    record_of,
)
from asks.agent.context import ResumedContext
from asks.agent.hints import LINE_HINTS, AnswerHints
from asks.agent.loop import Agent, Tool
from asks.agent.prompts import PromptBroker
from asks.agent.provider import Settings, SettingsError
from asks.agent.scripted import Script, ScriptError
from asks.agent.tools import real_tools, scripted_tools
from asks.agent.transcript import Transcript
from asks.cli.journal import open_journal, resume_id, storage_problem
from asks.config import Config
from asks.contract import DEFAULT_GUIDANCE, Guidance
from asks.core.focus import TYPING_GUARD, Focus
from asks.core.i18n import _
from asks.host.host import QuestionHost
from asks.store.entries import ModelChosen, Record, SessionMode
from asks.store.journal import Journal, StorageError
from asks.store.records import Records
from asks.surfaces import headless
from asks.widgets.app import Session

if TYPE_CHECKING:
    import argparse

USAGE_ERRORS = (ChoiceError, SettingsError, ScriptError)  # one line, exit status 2 (asks/cli)
RESTARTED = "the session was restarted before this tool finished"  # a resumed, unfinished call


def model_source(
    args: argparse.Namespace,
    config: Config,
    env: Mapping[str, str],
    recorded: ModelChosen | None = None,
) -> Script | Settings:
    """The script to play or the provider settings to use: the flags, then ``[model]``, then
    what the session recorded (asks/agent/choice.py)."""
    wanted = Wanted(args.script, args.provider, args.model, args.base_url)
    return choose(wanted, Configured(**attrs.asdict(config.model)), recorded, env)


def open_session(
    args: argparse.Namespace, data_dir: Path, mode: SessionMode, config: Config
) -> tuple[Journal, Records, bool, Script | Settings]:
    """The journal, its records, whether resumed, and the model (module docstring)."""
    source = None if resume_id(args, data_dir) else model_source(args, config, os.environ)
    first = () if source is None else (record_of(source),)  # saved with the first line
    journal, records, resumed = open_journal(args, data_dir, mode, first)
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


def start_session(
    args: argparse.Namespace,
    data_dir: Path,
    config: Config,
    hints: AnswerHints = LINE_HINTS,
) -> tuple[Journal, Session, bool]:
    """The journal, the agent's session for the REPL or line mode and whether it was resumed
    (module docstring; ``asks hub``'s own: asks/cli/run.py)."""
    journal, records, resumed, source = open_session(
        args, data_dir, SessionMode.INTERACTIVE, config
    )
    try:
        session = configured_session(journal, records, source, config, resumed=resumed, hints=hints)
    except BaseException:
        journal.close()
        raise
    return journal, session, resumed


def configured_session(
    journal: Journal,
    records: Sequence[Record],
    source: Script | Settings,
    config: Config,
    *,
    resumed: bool,
    **surface: Any,
) -> Session:
    """:func:`build_session` with what the config says (the guidance, ``run_command``'s
    timeout); ``surface``: the rest of its keywords (the UI, its hints, allowed commands)."""
    return build_session(
        journal,
        records,
        source,
        resumed=resumed,
        guidance=config.guidance,
        command_timeout=config.tools.command_timeout,
        typing_guard=config.ui.typing_guard,
        **surface,
    )


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
    typing_guard: float = TYPING_GUARD,
) -> Session:
    """Host, agent, transcript and prompt broker for a new or resumed session. Without a UI
    the host answers ask calls with ``no_ui`` and permission prompts are denied (allowed with
    ``allow_commands``). Tools: module docstring (``command_timeout``: ``run_command``'s own
    default when ``None``). ``hints``: how the person answers on the surface (its keys);
    ``typing_guard``: seconds without a key before a required question or a permission prompt
    takes the keys."""
    focus = Focus.of_screen(typing_guard)
    host = QuestionHost(
        journal, records, focus=focus, clock=trio.current_time, ui_attached=ui_attached
    )
    transcript = Transcript()
    context = ResumedContext(host.surface_port.projection.conversation)  # built at the first turn
    model = build_model(source, guidance, seen=context.count, hints=hints)
    if resumed:  # the end of the visible chat, the rest on demand; imported late (launch)
        from asks.agent.history import resume_transcript  # noqa: PLC0415

        resume_transcript(transcript, host, model.name, unfinished=RESTARTED, hints=hints)
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
        guidance=guidance,
        hints=hints,
        restore=(context.messages, RESTARTED if resumed else None),
    )
    return Session(host, agent, transcript, broker)
