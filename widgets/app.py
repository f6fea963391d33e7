"""The whole REPL screen and its run loop.

Top to bottom: transcript, question panel (only while questions exist), the foreign prompt
(only while one is up), chat editor, status line. The screen holds no policy: every key is
routed through ``host.key_route`` (focus owner + arrival guard) and the keymap; state lives in
the host, the agent, the transcript and the prompt broker, whose listeners refresh the views.
urwid redraws when trio goes idle after a change (TrioEventLoop's idle instrument), so changes
push redraws and nothing polls.

One trio nursery runs the urwid loop and the agent loop (``run_repl``).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import trio
import urwid

from asks.agent.loop import Agent, AgentState
from asks.agent.prompts import PromptBroker
from asks.agent.transcript import EntryKind, Transcript
from asks.core.model import QuestionRef
from asks.host.host import QuestionHost
from asks.sanitize import sanitize_text
from asks.widgets import chat, panel, prompt, status, transcript
from asks.widgets.keymap import Keymap

if TYPE_CHECKING:  # the bridge (hypercorn: ~0.1 s to import) loads only when asked for
    from asks.surfaces.web import WebBridge

SLASH_COMMANDS = ("/asks", "/help", "/quit", "/web")
QUIT_WINDOW = 2.0  # seconds in which a second Ctrl+C quits

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
    agent: Agent
    transcript: Transcript
    broker: PromptBroker


class ReplScreen(urwid.WidgetWrap[urwid.Pile]):
    """The REPL screen (see module docstring)."""

    def __init__(self, session: Session, keymap: Keymap, clock: Callable[[], float]) -> None:
        self.session = session
        self.keymap = keymap
        self.clock = clock
        self.transcript_view = transcript.TranscriptView(session.transcript)
        self.panel = panel.QuestionPanel(session.host, keymap, clock)
        self.prompt_view = prompt.PromptView(session.broker)
        self.chat = chat.ChatEditor(self._submit, SLASH_COMMANDS)
        self.status = status.StatusLine()
        self.quitting = False
        self.on_edit_request: Callable[[], None] = lambda: None
        self.on_web_request: Callable[[], None] = lambda: None
        self.web_url: str | None = None
        self._last_ctrl_c = -QUIT_WINDOW
        self._had_waits = False
        self._status_shown: tuple[object, ...] = ()
        super().__init__(urwid.Pile([("weight", 1, self.transcript_view)]))
        self._stale: set[str] = {"host", "transcript", "broker", "agent"}
        session.host.subscribe(lambda: self._changed("host"))
        session.transcript.subscribe(lambda: self._changed("transcript"))
        session.broker.subscribe(lambda: self._changed("broker"))
        session.agent.subscribe(lambda: self._changed("agent"))

    def _changed(self, source: str) -> None:
        """A model changed: rebuild its views once, before the next key or frame (many
        changes, one rebuild), and drop the cached canvas so urwid draws the next frame."""
        self._stale.add(source)
        self._invalidate()

    def _refresh_if_stale(self) -> None:
        if self._stale:
            self.refresh(self._stale)

    # -- rendering -------------------------------------------------------------------------
    def refresh(self, sources: set[str] | None = None) -> None:
        """Re-read the models that changed (default: all); rebuild the layout if needed."""
        changed = set(sources) if sources is not None else {"host", "transcript", "broker"}
        self._stale = set()
        if "transcript" in changed:
            self.transcript_view.refresh()
        if "host" in changed:
            self.panel.refresh()
        if "broker" in changed:
            self.prompt_view.refresh()
        self._update_status()
        self._layout()
        self._ring_on_new_blocker()

    def _update_status(self) -> None:
        """Update the status line when what it shows changed (an update redraws it)."""
        shown = (self.session.host.statistics(), self.session.agent.state, self.web_url or "")
        if shown != self._status_shown:
            self._status_shown = shown
            self.status.update(*shown)

    def _layout(self) -> None:
        host, broker = self.session.host, self.session.broker
        items: list[tuple[urwid.Widget, tuple[str, int] | tuple[str]]] = [
            (self.transcript_view, ("weight", 1))
        ]
        if host.tabs:
            items.append((self.panel, ("pack",)))
        if broker.current is not None:
            items.append((self.prompt_view, ("pack",)))
        items += [(self.chat, ("pack",)), (self.status, ("pack",))]
        pile = self._w
        wanted = [w for w, _ in items]
        if [w for w, _ in pile.contents] != wanted:
            pile.contents = [(w, pile.options(*opts)) for w, opts in items]
        pile.focus_position = wanted.index(self._focused_widget())

    def _focused_widget(self) -> urwid.Widget:
        host, broker = self.session.host, self.session.broker
        if broker.current is not None and host.focus.owner is broker.current.target:
            return self.prompt_view
        if host.focus.panel_focused and host.tabs:
            return self.panel
        return self.chat

    def _ring_on_new_blocker(self) -> None:
        """A terminal BEL when a blocking wait begins (TTY only)."""
        has_waits = bool(self.session.host.live_waits)
        if has_waits and not self._had_waits and sys.stdout.isatty():
            os.write(sys.stdout.fileno(), b"\a")
        self._had_waits = has_waits

    def render(self, size: Size, focus: bool = False) -> urwid.Canvas:
        if len(size) == 2:
            self.panel.max_rows = self._panel_rows(size[1])
        self._refresh_if_stale()
        return super().render(size, focus)

    def _panel_rows(self, screen_rows: int) -> int:
        """Half the screen while the panel is passive; while it has the keyboard, all but the
        chat editor, the status line and one transcript line (small screens need it)."""
        if self.session.host.focus.panel_focused:
            return max(3, screen_rows - 3)
        return max(3, screen_rows // 2)

    # -- keys ------------------------------------------------------------------------------
    def keypress(self, size: Size, key: str) -> str | None:
        cols = size[0] if size else 80
        self._refresh_if_stale()
        host, broker = self.session.host, self.session.broker
        if key == "ctrl c":
            self._ctrl_c()
            return None
        if broker.current is not None and host.focus.owner is broker.current.target:
            return self.prompt_view.keypress((cols,), key)
        route = host.key_route(self.clock())
        in_panel = route.target is host.focus.panel
        command = self.keymap.command_for("panel" if in_panel else "chat", key)
        if command == "collapse":
            host.toggle_collapse_nowait()
            return None
        if command in ("chat.scroll_up", "chat.scroll_down"):
            self.transcript_view.scroll(-1 if command == "chat.scroll_up" else 1)
            return None
        if command == "chat.interrupt":  # Esc in chat (Ctrl+C is handled above)
            self.session.agent.interrupt_nowait()
            return None
        if command == "panel.editor" and in_panel:
            self.on_edit_request()
            return None
        if in_panel:
            unhandled = self.panel.keypress((cols,), key)
            if unhandled is None:
                return None
            return self._global(self.keymap.command_for("panel", unhandled), unhandled)
        if command == "focus_toggle":
            host.toggle_focus_nowait()
            return None
        return self.chat.keypress((cols,), key)

    def _global(self, command: str | None, key: str) -> str | None:
        if command == "focus_toggle":
            self.session.host.toggle_focus_nowait()
            return None
        return key

    def _ctrl_c(self) -> None:
        """Ctrl+C: interrupt the running turn (or refuse an open prompt); a second Ctrl+C
        within ``QUIT_WINDOW`` seconds quits, whether the first interrupted a turn or not."""
        now, last = self.clock(), self._last_ctrl_c
        self._last_ctrl_c = now
        if now - last < QUIT_WINDOW:
            self._quit()  # even if a new turn started meanwhile (e.g. woken by feedback)
        if self.session.broker.current is not None:
            self.session.broker.answer_nowait(False)
        if self.session.agent.interrupt_nowait():
            return  # the agent's own notice says so; a second Ctrl+C soon after quits
        self.session.transcript.add(EntryKind.NOTICE, "Press Ctrl+C again to quit.")

    # -- chat commands -----------------------------------------------------------------------
    def _submit(self, text: str) -> None:
        if text.startswith("/"):
            self._slash(text.split())
            return
        self.session.agent.send_nowait(text)

    def _slash(self, words: Sequence[str]) -> None:
        name, args = words[0], words[1:]
        host, notes = self.session.host, self.session.transcript
        if name == "/quit":
            self._quit()
        elif name == "/asks":
            notice = host.enter_panel_nowait(args[0] if args else None)
            if notice is not None:
                notes.add(EntryKind.NOTICE, notice)
        elif name == "/web":
            self.on_web_request()
        elif name == "/help":
            notes.add(EntryKind.NOTICE, help_text(self.keymap), "help")
        else:
            notes.add(EntryKind.NOTICE, f"Unknown command {name}. Try /help.")

    def _quit(self) -> None:
        self.quitting = True
        raise urwid.ExitMainLoop()


def help_text(keymap: Keymap) -> str:
    lines = [
        "Commands: /asks [ID] open pending questions · /web answer from a browser · "
        "/help · /quit"
    ]
    for context in ("chat", "panel", "reply", "prompt"):
        lines.append(f"{context}: {keymap.help_line(context)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- external editor
async def edit_externally(
    loop: urwid.MainLoop, screen: ReplScreen, environ: dict[str, str] | None = None
) -> None:
    """Ctrl+G: edit the selected tab's reply (or its notes, when open) in $VISUAL/$EDITOR on a
    private 0600 temp file, with the screen suspended; the result is sanitised."""
    env = os.environ if environ is None else environ
    editor = env.get("VISUAL") or env.get("EDITOR") or "vi"
    host = screen.session.host
    tab = host.selected
    if not isinstance(tab, QuestionRef):
        return
    notes = screen.panel.notes_open
    draft = host.draft(tab)
    fd, name = tempfile.mkstemp(prefix="asks-", suffix=".txt")  # mkstemp: mode 0600
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(draft.notes if notes else draft.custom_text)
        loop.screen.stop()
        try:
            await trio.run_process([*editor.split(), str(path)], check=False)
        finally:
            loop.screen.start()
        text = sanitize_text(path.read_text(encoding="utf-8")).rstrip("\n")
    finally:
        path.unlink(missing_ok=True)
    if host.selected == tab:
        if notes:
            host.set_notes_nowait(text)
        else:
            host.set_custom_text_nowait(text)
    screen.refresh()
    loop.screen.clear()


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
) -> None:
    """Run the REPL until /quit or a double Ctrl+C: urwid, the agent and (``--web`` or
    ``/web``) the web bridge in one nursery."""
    event_loop = urwid.TrioEventLoop()
    repl = ReplScreen(session, keymap, trio.current_time)
    raw = screen or urwid.display.raw.Screen()
    if isinstance(raw, urwid.display.raw.Screen):
        raw.tty_signal_keys("undefined", "undefined", "undefined", "undefined", "undefined")
    loop = urwid.MainLoop(repl, palette(), screen=raw, event_loop=event_loop,
                          handle_mouse=False)
    async with trio.open_nursery() as nursery:
        repl.on_edit_request = lambda: nursery.start_soon(edit_externally, loop, repl)
        bridge = _WebStarter(repl, web or WebOptions(), nursery)
        repl.on_web_request = bridge.request
        if web is not None and web.start:
            bridge.request()
        nursery.start_soon(_run_agent, session.agent, opening_turn)
        with loop.start():
            await event_loop.run_async()
        session.host.detach_ui_nowait()
        nursery.cancel_scope.cancel()


@attrs.define(eq=False)
class _WebStarter:
    """``/web``: start the bridge once in the REPL's nursery, then show its URL."""

    repl: ReplScreen
    options: WebOptions
    nursery: trio.Nursery
    bridge: WebBridge | None = None

    def request(self) -> None:
        notes = self.repl.session.transcript
        if self.bridge is not None:
            notes.add(EntryKind.NOTICE, f"Answer in a browser: {self.bridge.url or 'starting…'}")
            return
        from asks.surfaces.web import WebBridge  # noqa: PLC0415 (lazy: see the import note above)

        self.bridge = WebBridge(self.repl.session.host, self.options.bind_host, self.options.port)
        self.nursery.start_soon(self._start, self.bridge)

    async def _start(self, bridge: WebBridge) -> None:
        notes = self.repl.session.transcript
        if bridge.warning:
            notes.add(EntryKind.ERROR, bridge.warning, "web")
        try:
            url = await self.nursery.start(bridge.run)
        except OSError as exc:
            self.bridge = None
            notes.add(EntryKind.ERROR, f"The web bridge could not start: {exc}", "web")
            return
        self.repl.web_url = f"web: {url}"
        notes.add(EntryKind.NOTICE, f"Answer in a browser: {url}")


async def _run_agent(agent: Agent, opening_turn: bool) -> None:
    await agent.run(opening_turn=opening_turn)
    assert agent.state is AgentState.IDLE
