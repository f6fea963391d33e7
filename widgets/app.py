"""The whole REPL screen and its run loop — built on the public layer widget, like any embedder.

Top to bottom: transcript, the :class:`~asks.widgets.layer.AsksLayer` (question panel, the
permission prompt while one is up, the chat editor), status line. The screen holds no policy:
every key goes to the layer (focus owner, typing guard, panel, prompt, chat editor), which
resolves it once and runs it from its handler table; the screen adds its own commands to that
table — Ctrl+C (interrupt; twice quits), Esc in chat (interrupt), PgUp/PgDn in chat
(transcript). State lives in the
host, the agent, the transcript and the prompt broker, whose listeners refresh the views.
urwid redraws when trio goes idle after a change (TrioEventLoop's idle instrument), so changes
push redraws and nothing polls.

One trio nursery runs the urwid loop, the layer's background work and the agent loop
(``run_repl``).
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import trio
import urwid

from asks.agent.loop import AgentState, Sent
from asks.agent.prompts import PromptBroker
from asks.agent.seat import ChatAgent
from asks.agent.transcript import EntryKind, Transcript
from asks.core import i18n
from asks.core.drafts import ChatLine, with_unsent
from asks.core.events import AnswerSaved, HostEvent, KeysReturned
from asks.core.extras import Extra, MissingExtraError, require
from asks.core.i18n import translate as _
from asks.core.space import PanelSpace
from asks.host.host import QuestionHost
from asks.surfaces.elsewhere import answer_lines
from asks.widgets import chat, panel, prompt, status, transcript
from asks.widgets.help import help_text
from asks.widgets.keymap import Command, Keymap
from asks.widgets.layer import AsksLayer
from asks.widgets.screen import AsksScreen

if TYPE_CHECKING:  # the bridge (hypercorn: ~0.1 s to import) loads only when asked for
    from asks.surfaces.web import WebBridge

SLASH_COMMANDS = ("/asks", "/help", "/language", "/quit", "/web")
QUIT_WINDOW = 2.0  # seconds in which a second Ctrl+C quits
MIN_SIZE = (24, 8)  # columns, rows: below this the screen only says it is too small

Size = tuple[()] | tuple[int] | tuple[int, int]


@attrs.frozen
class WebOptions:
    """Where the web bridge binds, and whether it starts with the REPL (``--web``)."""

    bind_host: str = "127.0.0.1"
    port: int = 0
    start: bool = False


@attrs.frozen
class Session:
    """The models one screen renders."""

    host: QuestionHost
    agent: ChatAgent  # the built-in agent loop, or nobody (asks hub: asks/agent/absent.py)
    transcript: Transcript
    broker: PromptBroker


class ReplScreen(urwid.WidgetWrap[urwid.Pile]):
    """The REPL screen (see module docstring)."""

    def __init__(
        self,
        session: Session,
        keymap: Keymap,
        clock: Callable[[], float],
        space: PanelSpace | None = None,
    ) -> None:
        self.session = session
        self.keymap = keymap
        self.clock = clock
        self.transcript_view = transcript.TranscriptView(session.transcript)
        self.prompt_view = prompt.PromptView(session.broker, keymap)
        self.chat = chat.ChatEditor(
            self._submit, SLASH_COMMANDS, keymap, arguments=self._arguments, on_hint=self._say
        )
        self.layer = AsksLayer(
            session.host.panel_port,
            self.chat,
            keymap=keymap,
            prompt=self.prompt_view,
            clock=clock,
            chat_edit=self.chat.edit,
            space=space,
            commands={
                Command.INTERRUPT: self.interrupt,
                Command.CHAT_INTERRUPT: session.agent.interrupt,
                Command.CHAT_SCROLL_UP: lambda: self.transcript_view.scroll(-1),
                Command.CHAT_SCROLL_DOWN: lambda: self.transcript_view.scroll(1),
            },
        )
        self.status = status.StatusLine()
        self.quitting = False
        self.on_web_request: Callable[[], None] = lambda: None
        self.web_url: str | None = None
        self.hint = ""  # transient, in the status line: gone at the next key or at _hint_until
        self._hint_until = float("inf")
        self._hint_set = trio.Event()  # wakes expire_hints when a hint with a time is said
        self._last_ctrl_c = -QUIT_WINDOW
        self._status_shown: tuple[object, ...] = ()
        super().__init__(
            urwid.Pile(
                [("weight", 1, self.transcript_view), ("pack", self.layer), ("pack", self.status)]
            )
        )
        self._w.focus_position = 1
        self._stale: set[str] = {"transcript", "broker", "status"}
        session.host.subscribe(lambda: self._changed("status"))
        session.transcript.subscribe(lambda: self._changed("transcript"))
        session.broker.subscribe(lambda: self._changed("broker"))
        session.agent.subscribe(lambda: self._changed("status"))
        session.host.subscribe_events(self._host_event)
        self._unread = 0  # sent messages the agent has not read (they are kept with the drafts)
        session.host.panel_port.drafts.keep_chat(self._unsent, self._put_back)
        session.transcript.subscribe(self._queue_moved)
        # a resume: what the last run left unsent, said once: in the transcript, which keeps it
        restored = self.layer.restore_drafts(say=False)
        if restored.notice is not None:
            session.transcript.add(EntryKind.NOTICE, restored.notice)

    def _unsent(self) -> ChatLine:
        """What the drafts file keeps of the chat: the messages sent but not read yet (rule
        10: a kill before the agent reads them must not lose them), then the chat line."""
        edit = self.chat.edit
        line = ChatLine(str(edit.edit_text), int(edit.edit_pos))
        return with_unsent((entry.text for entry in self.session.transcript.queued), line)

    def _put_back(self, line: ChatLine) -> None:
        self.chat.edit.set_edit_text(line.text)
        self.chat.edit.set_edit_pos(line.caret)

    def _queue_moved(self) -> None:
        """The agent read a queued message (it is journaled now): the drafts may change."""
        unread = len(self.session.transcript.queued)
        if unread != self._unread:
            self._unread = unread
            self.session.host.panel_port.drafts.chat_changed()

    def _arguments(self, command: str) -> tuple[str, ...]:
        """What Tab completes after ``/asks``: the ids of the pending questions; after ``@``:
        the agents the chat can write to (``asks hub``)."""
        if command == "@":
            return self.session.agent.addressees()
        if command != "/asks":
            return ()
        port = self.session.host.surface_port
        agents = tuple(f"@{agent}" for agent, _refs in port.pending_by_agent() if agent)
        return agents + tuple(ref.id for ref in port.projection.pending)

    def _say(self, hint: str, until: float = float("inf")) -> None:
        """Show ``hint`` in the status line until the next key, or until ``until`` (clock
        time) if that comes first."""
        self.hint = hint
        self._hint_until = until if hint else float("inf")
        if until != float("inf"):
            self._hint_set.set()
        self._changed("status")

    async def expire_hints(self) -> None:
        """Clear a hint whose time is over (:func:`run_repl` runs it; the clock is trio's).
        The quit hint lasts ``QUIT_WINDOW``: it is shown exactly while a second Ctrl+C quits."""
        while True:
            with trio.move_on_at(self._hint_until):
                await self._hint_set.wait()
            self._hint_set = trio.Event()
            if self.hint and self.clock() >= self._hint_until:
                self._say("")

    def _host_event(self, event: HostEvent) -> None:
        """An answer was saved (another agent's question, or one answered on another
        surface: :mod:`asks.surfaces.elsewhere`), the question under the keys went away and
        the keys went back: say so in the transcript (the notice under the panel goes at the
        next key; the unsent draft must not go with it)."""
        if isinstance(event, AnswerSaved):
            projection = self.session.host.surface_port.projection
            for line in answer_lines(projection, event, "panel"):
                self.session.transcript.add(EntryKind.NOTICE, line)
        elif isinstance(event, KeysReturned):
            self.session.transcript.add(EntryKind.NOTICE, event.notice)

    @property
    def panel(self) -> panel.QuestionPanel:
        return self.layer.panel

    def _changed(self, source: str) -> None:
        """A model changed: rebuild its views once, before the next key or frame."""
        self._stale.add(source)
        self._invalidate()

    def _refresh_if_stale(self) -> None:
        if self._stale:
            self.refresh(self._stale)

    # -- rendering -------------------------------------------------------------------------
    def refresh(self, sources: set[str] | None = None) -> None:
        """Re-read the models that changed (default: all)."""
        changed = set(sources) if sources is not None else {"transcript", "broker", "status"}
        self._stale = set()
        if "transcript" in changed:
            self.transcript_view.refresh()
        if "broker" in changed:
            self.prompt_view.refresh()
        self._update_status()

    def _update_status(self) -> None:
        """Update the status line when what it shows changed (an update redraws it)."""
        extra = " · ".join(part for part in (self.hint, self.web_url or "") if part)
        shown = (self.session.host.statistics(), self.session.agent.state, extra)
        if shown != self._status_shown:
            self._status_shown = shown
            self.status.update(*shown)

    def render(self, size: Size, focus: bool = False) -> urwid.Canvas:
        if len(size) == 2:
            cols, rows = size
            if cols < MIN_SIZE[0] or rows < MIN_SIZE[1]:
                return too_small(cols, rows)
            self.layer.fit(rows, cols)
        self._refresh_if_stale()
        return super().render(size, focus)

    # -- keys ------------------------------------------------------------------------------
    def keypress(self, size: Size, key: str) -> str | None:
        cols = size[0] if size else 80
        if self.hint:
            self._say("")
        self._refresh_if_stale()
        return self.layer.keypress((cols,), key)

    def interrupt(self) -> None:
        """Ctrl+C: interrupt the running turn (or refuse an open prompt); a second Ctrl+C
        within ``QUIT_WINDOW`` seconds quits, whether the first interrupted a turn or not. The
        hint that says so lasts that long (or until the next key)."""
        now, last = self.clock(), self._last_ctrl_c
        self._last_ctrl_c = now
        if now - last < QUIT_WINDOW:
            self._quit()  # even if a new turn started meanwhile (e.g. woken by feedback)
        if self.session.broker.current is not None:
            self.session.broker.answer(False)
        if self.session.agent.interrupt():
            return  # the agent's own notice says so; a second Ctrl+C soon after quits
        self._say(_("Press Ctrl+C again to quit."), until=now + QUIT_WINDOW)

    # -- chat commands -----------------------------------------------------------------------
    def _submit(self, text: str) -> bool:
        """A chat line: a slash command, else the agent's; False when nothing was sent (the
        editor keeps the line)."""
        if text.startswith("/"):
            return self._slash(text.split())
        sent = self.session.agent.send(text)
        self.transcript_view.follow()  # back to the newest, even before the turn shows it
        return sent is not Sent.REFUSED

    def _slash(self, words: Sequence[str]) -> bool:
        """A slash command; False when it was refused and the editor keeps the line (an
        ``/asks @name`` for an agent with no question: fix the name, nothing retyped)."""
        name, args = words[0], words[1:]
        notes = self.session.transcript
        if name == "/quit":
            self._quit()
        elif name == "/asks":
            notice = self.layer.open_questions(args[0] if args else None)
            if notice is not None:
                notes.add(EntryKind.NOTICE, notice)
                return not (args and args[0].startswith("@"))
        elif name == "/web":
            self.on_web_request()
        elif name == "/help":
            has_agent = self.session.agent.state is not AgentState.ABSENT
            notes.add(EntryKind.NOTICE, help_text(self.keymap, agent=has_agent), "help")
        elif name == "/language":
            notes.add(EntryKind.NOTICE, self._switch_language(args[0] if args else None))
        else:
            notes.add(EntryKind.NOTICE, _("Unknown command {name}. Try /help.").format(name=name))
        return True

    def _switch_language(self, code: str | None) -> str:
        """``/language [CODE]``: say the language in force, or switch to ``CODE`` and redraw
        the panel and the status line in it (the transcript keeps what it said)."""
        translator = i18n.active()
        if translator is None:  # an embedding that entered no translator scope
            return _("Languages are not available here.")
        available = ", ".join(i18n.SHOWN_CODES)
        if code is None:
            return _("Language: {name} ({code}). Available: {codes}.").format(
                name=i18n.LANGUAGE_NAMES[translator.language],
                code=i18n.shown(translator.language),
                codes=available,
            )
        if not translator.switch(code):
            return _("Unknown language {code}. Available: {codes}.").format(
                code=code, codes=available
            )
        self._status_shown = ()
        self.panel.refresh()
        self._changed("status")
        return _("Language: {name} ({code}).").format(
            name=i18n.LANGUAGE_NAMES[translator.language], code=i18n.shown(translator.language)
        )

    def _quit(self) -> None:
        self.quitting = True
        raise urwid.ExitMainLoop()


def too_small(cols: int, rows: int) -> urwid.Canvas:
    """One line saying the terminal is too small (nothing else fits honestly)."""
    need = _("Too small: asks needs {need}, this is {size}.").format(
        need=f"{MIN_SIZE[0]}×{MIN_SIZE[1]}", size=f"{cols}×{rows}"
    )
    text = urwid.Text(need, wrap="any")
    return urwid.Filler(text, valign="top").render((cols, rows))


# ---------------------------------------------------------------------------- run
def palette() -> list[tuple[str, str, str, str]] | list[Any]:
    """Every widget module's palette entries."""
    entries: list[Any] = []
    for module in (panel, transcript, status, prompt, chat):
        entries += list(getattr(module, "PALETTE", []))
    return entries


async def run_repl(
    session: Session,
    keymap: Keymap,
    *,
    opening_turn: bool,
    web: WebOptions | None = None,
    screen: urwid.BaseScreen | None = None,
    on_first_frame: Callable[[], object] | None = None,
    space: PanelSpace | None = None,
) -> int | None:
    """Run the REPL until /quit, a double Ctrl+C, SIGTERM or SIGHUP: urwid, the agent and
    (``--web`` or ``/web``) the web bridge in one nursery. Returns the number of the signal
    that ended it (else ``None``). ``on_first_frame`` is called once the first frame is drawn
    (what must not delay it starts then: the hub's server), outside urwid's idle pass, so that
    what it changes is drawn. ``space``: the panel's share of the screen (``[ui] panel_share``).

    The screen (default ``AsksScreen(signal_keys=False)``: Ctrl+C is a key) leaves the
    terminal as it found it on every way out, an exception included. SIGTERM and SIGHUP end
    the REPL the way /quit does (so does the terminal's input closing — a closed terminal
    window — which ends it as SIGHUP) (live waits end interrupted, the journal is closed by the
    caller); SIGINT — sent from outside, since the terminal's Ctrl+C is a key here — counts as
    Ctrl+C, except while the screen is stopped for the external editor (it was the editor's).
    """
    event_loop = urwid.TrioEventLoop()
    repl = ReplScreen(session, keymap, trio.current_time, space)
    raw = screen or AsksScreen(signal_keys=False)
    loop = urwid.MainLoop(repl, palette(), screen=raw, event_loop=event_loop, handle_mouse=False)
    ended: list[int] = []
    running = trio.CancelScope()  # around the urwid loop: a signal may cancel it early
    async with trio.open_nursery() as nursery:
        await nursery.start(_signals, repl, raw, running, ended)
        bridge = _WebStarter(repl, web or WebOptions(), nursery)
        repl.on_web_request = bridge.request
        if web is not None and web.start:
            bridge.request()
        nursery.start_soon(_run_agent, session.agent, opening_turn)
        nursery.start_soon(repl.expire_hints)
        async with repl.layer.running(loop):
            if on_first_frame is not None:
                _after_first_frame(event_loop, on_first_frame)
            with running:
                try:
                    await event_loop.run_async()
                except* urwid.InputClosedError:  # the terminal went away: as its hangup
                    ended.append(signal.SIGHUP)
        session.host.detach_ui()
        nursery.cancel_scope.cancel()
    return ended[0] if ended else None


def _after_first_frame(event_loop: urwid.TrioEventLoop, then: Callable[[], object]) -> None:
    """Call ``then`` after the first frame: the main loop draws in its idle callback, which
    urwid registered first at start, so ours runs after it. ``then`` runs from trio's entry
    queue (woken by I/O), not in the idle pass: urwid does not count what a task woken from its
    idle pass does as a change to draw, so the hub's "Hub on …" notice would wait for a key."""
    token = trio.lowlevel.current_trio_token()

    def drawn() -> None:
        event_loop.remove_enter_idle(handle)
        token.run_sync_soon(then)

    handle = event_loop.enter_idle(drawn)


async def _signals(
    repl: ReplScreen,
    screen: urwid.BaseScreen,
    running: trio.CancelScope,
    ended: list[int],
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """SIGTERM/SIGHUP end the REPL; SIGINT is Ctrl+C (see :func:`run_repl`)."""
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP, signal.SIGINT) as received:
        task_status.started()
        async for signum in received:
            if signum == signal.SIGINT:
                if not screen.started:
                    continue  # Ctrl+C in the external editor: the editor's
                try:
                    repl.interrupt()
                except urwid.ExitMainLoop:
                    running.cancel()
                continue
            ended.append(signum)
            running.cancel()
            return


class _WebStarter:
    """``/web``: start the bridge once in the REPL's nursery, then show its URL."""

    # A plain class, not attrs: building one is ~0.5 M instructions of every launch.
    __slots__ = ("bridge", "nursery", "options", "repl")

    def __init__(self, repl: ReplScreen, options: WebOptions, nursery: trio.Nursery) -> None:
        self.repl = repl
        self.options = options
        self.nursery = nursery
        self.bridge: WebBridge | None = None

    def request(self) -> None:
        notes = self.repl.session.transcript
        if self.bridge is not None:
            url = self.bridge.url or _("starting…")
            notes.add(EntryKind.NOTICE, _("Answer in a browser: {url}").format(url=url))
            return
        try:
            require(Extra.WEB, "/web")
        except MissingExtraError as exc:  # one line: what to install
            notes.add(EntryKind.ERROR, str(exc), "web")
            return
        from asks.surfaces.web import WebBridge  # noqa: PLC0415 (lazy: see the import note above)

        port = self.repl.session.host.surface_port
        self.bridge = WebBridge(port, self.options.bind_host, self.options.port)
        self.nursery.start_soon(self._start, self.bridge)

    async def _start(self, bridge: WebBridge) -> None:
        notes = self.repl.session.transcript
        if bridge.warning:
            notes.add(EntryKind.ERROR, bridge.warning, "web")
        try:
            url = await self.nursery.start(bridge.run)
        except OSError as exc:
            self.bridge = None
            notes.add(
                EntryKind.ERROR,
                _("The web bridge could not start: {error}").format(error=exc),
                "web",
            )
            return
        self.repl.web_url = f"web: {url}"
        notes.add(EntryKind.NOTICE, _("Answer in a browser: {url}").format(url=url))


async def _run_agent(agent: ChatAgent, opening_turn: bool) -> None:
    await agent.run(opening_turn=opening_turn)
    assert agent.state is not AgentState.WORKING
