"""Line mode (docs/design.md, "Other surfaces"): the session as plain lines, where no full
screen can be drawn (stdin or stdout not a terminal, ``TERM=dumb``, or ``--line``).

Same host, journal, delivery, resume and models as the REPL; only the surface differs. Answers
are saved through the :class:`~asks.host.surfaceport.SurfacePort` with source ``line``, so they are
journaled and delivered exactly once like every other answer.

What it prints (asks/surfaces/line_io.py, line_prompts.py): the transcript as plain lines
(sanitised, no escape sequences), each async question once when it arrives (id, header,
question, options), withdrawals, storage failures, and answers given elsewhere (``--web``:
the browser; ``-- Web answered in the browser: Gladly``). With ``--web`` the web bridge runs
in line mode's nursery for as long as it runs; its URL is printed once it listens.

What a line means depends on what is asked when it is *taken* (never when it was read ahead):

1. a permission prompt is open → ``Allow …? [y/N]``;
2. a blocking wait holds a pending question → that question (one at a time, in the group's
   order, ``answer>``): a number, ``1,3`` for a multi-select, or the person's own text; notes
   after `` //``; ``/decline`` declines this question; ``/later`` defers the wait (its
   questions stay pending); in a group of several, an empty line submits what was answered so
   far after a ``[y/N]`` confirmation (the rest stay pending), and after its last question
   one more line is an optional note for all of them (an empty line skips it);
3. ``/asks ID`` picked a pending question → the same prompt (``/later`` leaves it pending)
   (what a line does at a question: asks/surfaces/line_questions.py);
4. otherwise chat (``you>``): a message for the agent, ``/asks`` (list), ``/asks ID``,
   ``/help``, ``/quit``. When stdin is a terminal, chat is also read while the agent works (a
   message waits for the next turn; ``/asks ID`` answers mid-turn, the answer is steered in);
   from a pipe nothing is taken while the agent works, so ``printf 'hello\\n1\\n'`` sends
   "hello" and answers the question the turn asks with "1".

Bad input (an out-of-range number, ``1,,9``, an unknown id, an unknown command) gets one line
saying why and the same prompt again; nothing is saved from it.

Ending: end of input ends the session once the running turn has finished (its reply is
printed): a blocking question that meets it ends its wait ``interrupted`` (the host detaches,
so later asks get ``no_ui``), an open permission prompt is denied, pending questions stay
pending, saved answers still reach the agent. Ctrl+C interrupts the running turn (or denies
an open prompt); a second Ctrl+C before the next line is taken or the next turn starts quits
with status 130. ``/quit`` quits at once (status 0). The caller prints the resume command.
"""

from __future__ import annotations

import enum
import functools
import io
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, TextIO

import attrs
import trio

from asks.agent.loop import AgentState, Sent
from asks.agent.prompts import Prompt, PromptBroker
from asks.agent.seat import ChatAgent
from asks.agent.transcript import EntryKind, Transcript
from asks.core.events import (
    AnswerSaved,
    HostEvent,
    QuestionAsked,
    QuestionsWithdrawn,
    StorageFailed,
)
from asks.core.i18n import N_, _
from asks.core.model import QuestionRef
from asks.host.panelport import PanelPort
from asks.sanitize import sanitize_line
from asks.store.journal import StorageState
from asks.surfaces.elsewhere import answer_lines
from asks.surfaces.line_io import LineReader, Output, TranscriptPrinter
from asks.surfaces.line_prompts import arrival_lines, parse_yes_no, pending_lines, question_lines
from asks.surfaces.line_questions import Asking, QuestionPrompt, Step
from asks.surfaces.terminal import line_mode_wanted

if TYPE_CHECKING:  # the bridge (hypercorn) is imported by the caller, only for --web
    from asks.surfaces.web import WebBridge

CHAT_PROMPT: Final = N_("you> ")  # these three are shown translated
ANSWER_PROMPT: Final = N_("answer> ")
HELP: Final = N_(
    "-- Line mode: type a message and press Enter to send it to the agent.\n"
    "   /asks lists pending questions · /asks ID answers one · /help · /quit\n"
    "   At a question: an option number (1,3 for several) or your own text; notes after //;\n"
    "   /decline declines it, /later defers it. In a group, an empty line submits what you\n"
    "   answered so far. Ctrl+C interrupts the agent, twice quits. End of input (Ctrl+D)\n"
    "   ends the session after the running turn."
)


class Exit(enum.StrEnum):
    """Why line mode ended."""

    END_OF_INPUT = "end_of_input"
    QUIT = "quit"
    INTERRUPTED = "interrupted"  # a second Ctrl+C

    @property
    def status(self) -> int:
        return 130 if self is Exit.INTERRUPTED else 0


# ---------------------------------------------------------------------------- what is asked
@attrs.frozen
class Chat:
    idle: bool  # the agent waits for the person (the prompt is shown only then)


@attrs.frozen
class Permission:
    prompt: Prompt


class _State(enum.Enum):
    BUSY = "busy"  # piped input: the agent works and asks nothing, so no line is taken
    DRAINING = "draining"  # input ended: the running turn finishes
    DONE = "done"  # input ended and nothing runs any more
    CHANGED = "changed"  # what was asked went away before a line came
    ENDED = "ended"  # the input ended before a line came


Need = Chat | Permission | Asking | _State
Handled = Exit | Step | None


@attrs.define(eq=False)
class LineMode:
    """One line-mode session over a host, its agent, transcript and prompt broker."""

    port: PanelPort
    agent: ChatAgent  # the agent loop, or nobody (asks hub: chat lines are notes)
    transcript: Transcript
    broker: PromptBroker
    out: Output
    reader: LineReader
    web: WebBridge | None = None
    questions: QuestionPrompt = attrs.field(init=False)
    _picked: QuestionRef | None = None
    _prompted: Need | None = None  # what the line being read is for
    _eof: bool = False
    _armed: bool = False  # Ctrl+C was pressed once: the next one quits
    _expect_turn: bool = False  # the opening turn has not started yet
    _sent: int = 0  # chat messages sent
    _started: int = 0  # of those, how many started their turn
    _seen: int = 0  # transcript entries looked at
    _exit: Exit | None = None
    _change: trio.Event = attrs.Factory(trio.Event)
    _scope: trio.CancelScope = attrs.Factory(trio.CancelScope)

    def __attrs_post_init__(self) -> None:
        self.questions = QuestionPrompt(self.port, self.out)

    async def run(self, *, opening_turn: bool) -> Exit:
        """Serve until end of input, ``/quit`` or a second Ctrl+C (module docstring)."""
        self._expect_turn = opening_turn and self.agent.opens_sessions
        TranscriptPrinter(self.transcript, self.out).start()
        self._seen = len(self.transcript.entries)
        if self.port.projection.pending:
            self.out.lines(self._pending())
        self.port.subscribe(self._changed)
        self.port.subscribe_events(self._event)
        self.broker.subscribe(self._changed)
        self.agent.subscribe(self._agent_changed)
        self.transcript.subscribe(self._transcript_changed)
        exit_ = Exit.QUIT
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.reader.run)
            nursery.start_soon(self._signals)
            if self.web is not None:
                nursery.start_soon(self._start_web, self.web, nursery)
            nursery.start_soon(functools.partial(self.agent.run, opening_turn=opening_turn))
            with self._scope:
                exit_ = await self._serve()
            self.port.detach_ui()  # live waits end interrupted; questions stay pending
            nursery.cancel_scope.cancel()
        return self._exit or exit_

    # -- the loop ----------------------------------------------------------------------------
    async def _serve(self) -> Exit:
        while True:
            need = self._need()
            if need is _State.DONE:
                return Exit.END_OF_INPUT
            if isinstance(need, _State):
                await self._until_changed(need)
                continue
            handled = await self._serve_need(need)
            if isinstance(handled, Exit):
                return handled

    def _need(self) -> Need:
        prompt = self.broker.current
        if prompt is not None and prompt.answer is None:
            return Permission(prompt)
        pending = self.port.projection.pending
        for wait in self.port.live_waits:
            for number, ref in enumerate(wait.refs, start=1):
                if ref in pending:
                    return Asking(ref, wait.call_id, (number, len(wait.refs)))
        if self._picked is not None and self._picked in pending:
            return Asking(self._picked, None)
        busy = self._busy()
        if self._eof:
            return _State.DRAINING if busy else _State.DONE
        if busy and not self.out.interactive:
            return _State.BUSY
        return Chat(idle=not busy)

    def _busy(self) -> bool:
        """The agent works, or is about to (a turn queued, feedback to wake it)."""
        stats = self.port.statistics()
        feedback = stats.saved_for_agent > 0 and stats.storage is StorageState.OK
        working = self.agent.state is AgentState.WORKING
        return working or self._expect_turn or self._sent > self._started or feedback

    async def _serve_need(self, need: Chat | Permission | Asking) -> Handled:
        if self._eof:
            return self._nobody_there(need)
        self._introduce(need)
        while True:
            text = await self._take(need, _prompt_text(need))
            if isinstance(text, _State):
                return None
            handled = await self._handle(need, text)
            if handled is Step.DONE and isinstance(need, Asking) and not need.required:
                self._picked = None  # answered, declined or left: back to chat
            if handled is not Step.AGAIN:
                return handled

    async def _take(self, need: Need, prompt: str | None) -> str | _State:
        """Prompt (if any) and take the next line for ``need``, sanitised: or CHANGED when
        ``need`` went away first, or ENDED at the end of input."""
        if prompt is not None:
            self.out.prompt(prompt)
        self._prompted = need
        try:
            line = await self._line_unless_changed(need)
        finally:
            self._prompted = None
        if line is None or isinstance(line, _State):
            self.out.hide_prompt()
            if line is None:
                self._end_of_input()
            return _State.ENDED if line is None else _State.CHANGED
        text = sanitize_line(line).strip()
        self.out.took(text)
        self._armed = False
        return text

    def _introduce(self, need: Need) -> None:
        if isinstance(need, Asking):
            question = self.port.question(need.ref)
            required = need.call_id is not None
            self.out.lines(question_lines(question, position=need.position, required=required))
            if required:
                self.out.bell()

    async def _line_unless_changed(self, need: Need) -> str | _State | None:
        """The next line, or CHANGED when ``need`` goes away first (a line is never lost)."""
        got: list[str | _State | None] = []
        async with trio.open_nursery() as nursery:

            async def read() -> None:
                got.append(await self.reader.next_line())
                nursery.cancel_scope.cancel()

            async def watch() -> None:
                await self._until_changed(need)
                got.append(_State.CHANGED)
                nursery.cancel_scope.cancel()

            nursery.start_soon(read)
            nursery.start_soon(watch)
        return next((item for item in got if item is not _State.CHANGED), _State.CHANGED)

    async def _until_changed(self, need: Need) -> None:
        while self._need() == need:
            await self._change.wait()

    # -- what a line does ----------------------------------------------------------------------
    async def _handle(self, need: Chat | Permission | Asking, text: str) -> Handled:
        """Commands any prompt takes (``/quit``, ``/help``, ``/asks``), then the need's own."""
        again = None if isinstance(need, Chat) else Step.AGAIN
        if text == "/quit":
            return Exit.QUIT
        if text == "/help":
            self.out.lines(_(HELP).split("\n"))
            return again
        if text == "/asks":
            self.out.lines(self._pending())
            return again
        if isinstance(need, Permission):
            return self._permission(text)
        if isinstance(need, Chat):
            return self._chat(text)

        async def confirm(prompt: str) -> str | None:
            taken = await self._take(need, prompt)
            return None if isinstance(taken, _State) else taken

        return await self.questions.handle(need, text, confirm)

    def _chat(self, text: str) -> Handled:
        if text.startswith("/"):
            return self._command(text.split())
        if text:
            busy = self._busy()
            if self.agent.send(text) is not Sent.QUEUED:
                return None  # handled at once (asks hub: a note), no turn reads it
            self._sent += 1
            if busy:
                self.out.line("-- " + _("Sent: the agent reads it when its current turn ends."))
        return None

    def _command(self, words: Sequence[str]) -> Handled:
        if words[0] == "/asks" and len(words) == 2:
            self._pick(words[1])
        else:
            unknown = _("Unknown command {command}. Try /help.")
            self.out.line("-- " + unknown.format(command=sanitize_line(" ".join(words))))
        return None

    def _pick(self, question_id: str) -> None:
        ref = self.port.projection.current.get(question_id)
        if ref is None or ref not in self.port.projection.pending:
            self.out.line(
                "-- "
                + _("No pending question with id {id}. (/asks lists them.)").format(
                    id=sanitize_line(question_id)
                )
            )
            return
        self._picked = ref

    def _pending(self) -> list[str]:
        port = self.port
        return pending_lines(
            (port.question(ref), port.wait_for(ref) is not None) for ref in port.projection.pending
        )

    def _permission(self, text: str) -> Handled:
        yes = parse_yes_no(text)
        if yes is None:
            self.out.line("-- " + _("Answer y or n."))
            return Step.AGAIN
        self.broker.answer(yes)
        return None

    # -- ending ---------------------------------------------------------------------------------
    def _end_of_input(self) -> None:
        self._eof = True
        if self.port.live_waits or self._busy():
            ending = _("End of input: the agent finishes its turn; questions stay pending.")
            self.out.line("-- " + ending)
        self._nobody_there(self._need())

    def _nobody_there(self, need: Need) -> Handled:
        """Input has ended: nobody can answer what is asked now or later."""
        self._picked = None
        if isinstance(need, Permission):
            self.broker.answer(False)
        self.port.detach_ui()  # blocking waits end interrupted; new asks get no_ui
        return None

    async def _start_web(self, bridge: WebBridge, nursery: trio.Nursery) -> None:
        """``--web``: the bridge in this nursery (it stops when line mode ends); its URL."""
        if bridge.warning:
            self.out.line(f"-- {bridge.warning}")
        try:
            url = await nursery.start(bridge.run)
        except OSError as exc:
            self.out.line("-- " + _("The web bridge could not start: {error}").format(error=exc))
            return
        self.out.line("-- " + _("Answer in a browser: {url}").format(url=url))

    async def _signals(self) -> None:
        with trio.open_signal_receiver(signal.SIGINT) as received:
            async for _ in received:
                self._ctrl_c()

    def _ctrl_c(self) -> None:
        """Interrupt the turn (or deny the prompt); a second Ctrl+C quits (module docstring)."""
        if self._armed:
            self._exit = Exit.INTERRUPTED
            self._scope.cancel()
            return
        self._armed = True
        if self.broker.current is not None:
            self.broker.answer(False)
        if not self.agent.interrupt():
            self.out.line("-- " + _("Press Ctrl+C again to quit."))

    # -- listeners ------------------------------------------------------------------------------
    def _changed(self) -> None:
        self._change.set()
        self._change = trio.Event()

    def _agent_changed(self) -> None:
        if self.agent.state is AgentState.WORKING:
            self._expect_turn = False
            self._armed = False  # a new turn: the next Ctrl+C interrupts it
        self._changed()

    def _transcript_changed(self) -> None:
        entries = self.transcript.entries
        self._started += sum(1 for e in entries[self._seen :] if e.kind is EntryKind.USER)
        self._seen = len(entries)
        self._changed()

    def _event(self, event: HostEvent) -> None:
        if isinstance(event, QuestionAsked) and not event.blocking:
            for ref in event.refs:
                self.out.lines(arrival_lines(self.port.question(ref)))
        elif isinstance(event, QuestionsWithdrawn):
            ids = ", ".join(ref.id for ref in event.refs)
            self.out.line("-- " + _("Withdrawn by the agent: {ids}.").format(ids=ids))
        elif isinstance(event, StorageFailed):
            self.out.line(f"-- {sanitize_line(event.message)}")
        elif isinstance(event, AnswerSaved):  # here, or e.g. in the browser
            asked = self._prompted
            if event.source != "line" and isinstance(asked, Asking) and asked.ref in event.refs:
                self.out.hide_prompt()  # answered there: its prompt is not shown again
            lines = answer_lines(self.port.projection, event, "line")
            self.out.lines([f"-- {line}" for line in lines])


def _prompt_text(need: Chat | Permission | Asking) -> str | None:
    if isinstance(need, Chat):
        return _(CHAT_PROMPT) if need.idle else None
    if isinstance(need, Permission):
        return _("{question}? [y/N] ").format(question=sanitize_line(need.prompt.text))
    return _(ANSWER_PROMPT)


wanted = line_mode_wanted  # the decision lives in asks/surfaces/terminal.py


async def serve(
    port: PanelPort,
    agent: ChatAgent,
    transcript: Transcript,
    broker: PromptBroker,
    *,
    opening_turn: bool,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
    web: WebBridge | None = None,
) -> Exit:
    """Run one line-mode session on ``stdin``/``stdout`` (module docstring), with ``web``
    (``--web``) serving the same questions to a browser while it runs."""
    if isinstance(stdout, io.TextIOWrapper):
        stdout.reconfigure(errors="replace")  # a non-UTF-8 terminal gets "?" for what it lacks
    out = Output(stdout, interactive=stdin.isatty())
    mode = LineMode(port, agent, transcript, broker, out, LineReader(stdin.fileno()), web)
    return await mode.run(opening_turn=opening_turn)
