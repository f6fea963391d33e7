"""The public layer widget: the question panel next to *any* chat editor, owning the key path.

``AsksLayer(port, editor)`` draws, top to bottom: the question panel (mounted only while
questions are pending), an optional prompt widget (only while a foreign prompt owns the
keyboard), and the embedder's chat editor. It is the one place keys enter asks:

* every key goes through ``port.decide(now, key)`` — the focus machine
  (docs/focus-machine.md) routes it and names the action the layer performs: the focus owner
  and the **typing guard**
  (the typing guard, :mod:`asks.core.focus`): while a blocker's claim is not engaged, keys keep
  going where the person was typing, in order, none lost; the panel takes keys only after a
  pause. A timer (in :meth:`AsksLayer.running`) engages the claim when the pause is over, so
  the screen shows the hand-over without a key; the same timer clears the host's notice when
  its time is over (a key clears it sooner);
* **each key is resolved once** (:mod:`asks.widgets.keys`): looked up in the keymap for the
  context it goes to (chat, the panel's rows or reply editor for the tab it was aimed at, the
  prompt) and run from **one handler table** (:attr:`AsksLayer.commands`): the panel's, the
  prompt's and the chat editor's commands (when they are :class:`~asks.widgets.keys.KeyCommands`,
  as asks' own are), the embedding app's (``commands=``: Ctrl+C, Esc in chat, PgUp/PgDn for
  the REPL's transcript), and the layer's own, which win: the focus toggle (chat → panel;
  inside the panel it cycles required tabs while a blocker waits), collapse (everywhere, also
  at a permission prompt), Ctrl+G (the draft in ``$VISUAL``/``$EDITOR``). A key with no
  command, or none the table runs, goes to that context's editor or prompt. An app command
  bound globally (Ctrl+C) runs before the key is routed: it is not typing;
* an Esc that paused the panel never also counts as an Esc in chat: an Esc within the guard
  interval after it is swallowed, so a double Esc cannot interrupt the agent;
* a printable key the panel cannot use (no binding on an option row, the ``Next`` row, the
  Review tab; a digit with no row) is **stray**: the host says where it goes instead
  (``port.stray_key``: the chat editor, the typing guard re-armed) and the layer
  delivers it there, so typing meant for the chat is never dropped and never answers;
* at a **foreign prompt** (docs/architecture.md) keys go where the person
  was typing until they pause (the prompt's guard, like a claim's); then a printable key the
  prompt does not use is stray too (to the chat, the prompt held again), and a printable
  decision key (``y``/``n``) is held by the host until the pause after it (the timer then
  delivers it to the prompt) or the prompt's confirm key (Enter); a printable typed before
  that sends the held key and itself to the chat;
* at an agent's **permission request** in the panel (docs/permission-prompts.md) ``y``/``n``
  are held and delivered the same way (:mod:`asks.widgets.permkeys`); Enter delivers a held
  one at once, any other key drops it;
* the cursor sits where :meth:`~asks.core.focus.Focus.keyboard` says the keys go — the same
  answer that routes them and that the status line names;
* what no handler and no editor uses is returned, as urwid expects.

It also rings the terminal bell when the first blocking wait begins, and gives embedders the
status text (:meth:`AsksLayer.status_text`) and ``/asks [ID]`` (:meth:`AsksLayer.open_questions`)
for their own status line and slash commands. Keys typed before the first frame (while the
program started) are delivered to the editor once the screen runs (:meth:`running`).

Drafts survive a crash or kill: :meth:`running` restores the session's
drafts file once (:meth:`restore_drafts`), saves the panel's drafts and the chat line while the
person types (debounced, in the background: a key only marks them dirty) and once more at the
end (:mod:`asks.host.keeper`). The chat line is the text and caret of ``chat_edit``, by default
the editor itself when it is an ``urwid.Edit`` (under decorations); for another editor call
``port.drafts.keep_chat(read, write)`` before :meth:`running`.

The layer keeps no policy: focus, waits and drafts live in the host behind the port.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator, Callable, Hashable, Mapping
from typing import Final

import trio
import urwid

from asks.core.agents import named_agent
from asks.core.drafts import ChatLine
from asks.core.focus import Action, FocusTarget, KeyEvent, KeySeen, KeysTo, Route, decide
from asks.core.i18n import _
from asks.core.refusal import Refusal
from asks.core.renamed import renamed
from asks.core.restore import Restored
from asks.core.space import PanelSpace
from asks.host.panelport import PanelPort
from asks.widgets.external import edit_externally
from asks.widgets.keymap import PANEL_COMMANDS, Command, Context, Keymap, build_keymap
from asks.widgets.keys import KeyCommands, KeyHandler, KeyPress, used
from asks.widgets.keyspec import is_text_key, pretty_key
from asks.widgets.panel import PALETTE as PANEL_PALETTE
from asks.widgets.panel import QuestionPanel
from asks.widgets.panel.markup import Size, rows_of
from asks.widgets.panel.palette import Palette
from asks.widgets.permkeys import PermissionKeys
from asks.widgets.promptkeys import PromptDecisions
from asks.widgets.status import left_markup
from asks.widgets.typeahead import TypeAhead

_Perform = Callable[[Size, str, Command | None, Route, float], str | None]  # one action
_OWN = (Command.FOCUS_TOGGLE, Command.COLLAPSE, Command.PANEL_EDITOR)  # the layer's commands
LAYER_PALETTE: Final[Palette] = PANEL_PALETTE  # what the layer draws with (add yours: with_entries)


def ring_terminal_bell() -> None:
    """Write BEL to stdout if it is a terminal (the default ``bell`` of the layer)."""
    if sys.stdout.isatty():
        os.write(sys.stdout.fileno(), b"\a")


def _trio_now() -> float:
    try:
        return trio.current_time()
    except RuntimeError:
        raise RuntimeError(
            "AsksLayer needs a running trio loop: run urwid with urwid.TrioEventLoop() inside "
            "trio.run(...), and the layer inside `async with layer.running(loop):`"
        ) from None


class AsksLayer(urwid.WidgetWrap[urwid.Pile]):
    """The asks question panel above your chat editor: put it where the editor was.

    ``AsksLayer(host.panel_port, editor)`` wraps ``editor`` (any urwid widget; an
    ``urwid.Edit``, possibly decorated, also has its text kept in the drafts file) and shows
    the panel above it while questions are pending. Every key goes through it: it decides
    whether the panel, a prompt or the editor gets the key (the typing guard keeps a blocking
    question from taking keys mid-sentence) and returns from :meth:`keypress` what nobody
    used — Enter in the editor (submit in your handler), Ctrl+C, PgUp, … — as urwid expects.

    Run the screen inside ``async with layer.running(loop):`` (trio only: it starts the
    loop's screen and the guard timer, drafts and Ctrl+G's editor, and stops the screen
    however the block ends). For your status line and commands: :meth:`status_text`,
    :meth:`run_command` (``/asks [ID]``, which the status line advertises: call it with each
    line your editor sends), :meth:`open_questions`, :meth:`restore_drafts`.

    ``keymap``: the keys (:func:`~asks.widgets.keymap.build_keymap`, defaults when ``None``);
    ``prompt``: a widget shown while a foreign prompt of yours has the keyboard
    (``port.begin_foreign``); ``chat_edit``: the ``urwid.Edit`` inside a custom
    editor; ``space``: how many rows the panel may take (:class:`~asks.core.space.PanelSpace`:
    half the screen, the editor and two more rows of yours always visible; :meth:`fit`);
    ``commands``: your handlers for commands of the keymap the layer resolves but does not
    carry out itself; ``bell`` and ``clock`` are for tests. The guide, with the table of
    which keys the layer carries out and which it hands to your editor or returns to you:
    docs/embedding.md.
    """

    def __init__(
        self,
        port: PanelPort,
        editor: urwid.Widget,
        *,
        keymap: Keymap | None = None,
        prompt: urwid.Widget | None = None,
        bell: Callable[[], None] = ring_terminal_bell,
        clock: Callable[[], float] = _trio_now,
        chat_edit: urwid.Edit | None = None,
        commands: Mapping[Command, Callable[[], object]] | None = None,
        space: PanelSpace | None = None,
    ) -> None:
        self.port = port
        self.space = space or PanelSpace()
        self.editor = editor
        self._drafts = port.drafts
        base = editor.base_widget if chat_edit is None else chat_edit
        self._chat_edit = base if isinstance(base, urwid.Edit) else None
        if self._chat_edit is not None:
            self._drafts.keep_chat(self._read_chat, self._write_chat)
        self.keymap = keymap or build_keymap()
        self.panel = QuestionPanel(port, self.keymap)
        self.prompt = prompt
        self._bell = bell
        self._clock = clock
        self._loop: urwid.MainLoop | None = None
        self._nursery: trio.Nursery | None = None
        self._typeahead = TypeAhead()
        self._pause_esc_at = float("-inf")
        self.last_context = Context.CHAT  # where the last key went (for unhandled keys)
        self._had_waits = bool(port.live_waits)
        self._stale = False  # a change not yet in the view (:meth:`_changed`)
        self._keying = False  # a key is being routed: changes are drawn at once
        self._guard_changed = trio.Event()
        self._timer_until = float("inf")  # when the guard timer wakes if nothing changes
        self._seen_keys: dict[str, KeySeen] = {}  # each key name as the key machine sees it
        self._actions: Mapping[Action, _Perform] = {  # what the layer does for each action
            Action.TYPING: self._typing,
            Action.PANEL: self._panel_key,
            Action.PROMPT: self._prompt_key,
            Action.STRAY: self._stray,
            Action.DELIVER_HELD: self._deliver_held,
            Action.DROP_HELD: self._drop_held,
        }
        decisions: dict[Command, KeyHandler] = (
            dict(prompt.key_commands()) if isinstance(prompt, KeyCommands) else {}
        )
        self._permission = PermissionKeys(port)  # y/n at an agent's permission request
        decisions.update(self._permission.decisions())
        self._decisions = PromptDecisions(port, decisions, self._prompt_text)
        app = dict(commands or {})
        self._commands = self._command_table(app)
        global_ = {b.command for b in self.keymap.bindings if b.context is Context.GLOBAL}
        self._early = frozenset(c for c in app if c in global_ and c not in _OWN)
        self._editor_text = _text_input(editor)
        self._prompt_input = None if prompt is None else _text_input(prompt)
        self._text: Mapping[Context, KeyHandler] = {
            Context.CHAT: self._chat_text,
            Context.PANEL: self.panel.text_key,
            Context.REPLY: self.panel.text_key,
            Context.PROMPT: self._prompt_text,
        }
        super().__init__(urwid.Pile([editor]))
        port.name_keys(
            {
                panel_command: pretty_key(key)
                for command, panel_command in PANEL_COMMANDS.items()
                if (key := self.keymap.key_in(Context.PANEL, command)) is not None
            }
        )
        port.subscribe(self._changed)
        self._refresh()

    # -- embedding ---------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def running(self, loop: urwid.MainLoop) -> AsyncIterator[AsksLayer]:
        """Start ``loop``'s screen and run the layer's background work (typing-guard timer,
        Ctrl+G) until the block ends; then stop the loop. Use it inside trio::

            async with layer.running(loop):
                await loop.event_loop.run_async()

        Keys typed while the program started (before the screen took the terminal) are read
        first and handed to the loop before any later key, in order.
        """
        _trio_now()  # a clear error outside trio
        self.restore_drafts()
        self._loop = loop
        self._typeahead.capture(loop.screen)
        # before the loop's own idle callback (its frame): a stale view is rebuilt first
        fresh = loop.event_loop.enter_idle(self._fresh)
        try:
            async with self._started(loop):
                yield self
        finally:
            loop.event_loop.remove_enter_idle(fresh)

    @contextlib.asynccontextmanager
    async def _started(self, loop: urwid.MainLoop) -> AsyncIterator[None]:
        with loop.start():
            self._typeahead.deliver(loop)
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                nursery.start_soon(self._guard_timer)
                nursery.start_soon(self._drafts.run)
                try:
                    yield
                finally:
                    nursery.cancel_scope.cancel()
                    self._drafts.flush()
                    self._nursery = None
                    self._loop = None

    def restore_drafts(self, *, say: bool = True) -> Restored:
        """Bring back the drafts an earlier run of this session left (once; :meth:`running`
        calls it): pending questions' drafts into the panel, the chat line into the editor.
        Nothing is sent or saved. Returns what came back; its ``notice`` is the sentence to
        show the person: the host's notice says it, or with ``say=False`` (called before
        :meth:`running`) only the caller does, e.g. in its transcript — once, not twice."""
        return self._drafts.restore(say=say)

    def _read_chat(self) -> ChatLine:
        assert self._chat_edit is not None
        return ChatLine(str(self._chat_edit.edit_text), int(self._chat_edit.edit_pos))

    def _write_chat(self, line: ChatLine) -> None:
        assert self._chat_edit is not None
        self._chat_edit.set_edit_text(line.text)
        self._chat_edit.set_edit_pos(line.caret)

    def status_text(self) -> str:
        """``Asks: 2 pending · 1 saved feedback · /asks`` (plus the host's notice)."""
        markup = left_markup(self.port.statistics())
        return "".join(part if isinstance(part, str) else part[1] for part in markup)

    def open_questions(self, question_id: str | None = None) -> str | None:
        """``/asks [ID]``: open the panel with the keyboard; ``/asks @name``: on that agent's
        first question (:mod:`asks.core.agents`); a sentence if that is refused."""
        agent = named_agent(question_id) if question_id is not None else None
        if agent is not None:
            refused = self.port.enter_agent(agent)
            return None if refused is None else (self.port.notice or refused.text)
        refusal = self.port.enter_panel(question_id)
        if refusal is None:
            return None
        if refusal is Refusal.UNKNOWN_QUESTION and question_id is not None:
            return _("No pending question with id {id}.").format(id=question_id)
        return refusal.text

    def run_command(self, line: str) -> bool:
        """Run ``line`` if it is one of the layer's own chat commands: ``/asks``, ``/asks ID``,
        ``/asks @name`` (what :meth:`status_text` advertises). Call it with each line the person
        sends from your chat editor, before your own commands: True means the line was the
        layer's (do not send it to your agent); a refusal, e.g. no such question, is shown as
        the host's notice under the panel and in :meth:`status_text`. False: not the layer's,
        nothing happened."""
        command, _space, argument = line.strip().partition(" ")
        if command != "/asks":
            return False
        self.open_questions(argument.strip() or None)  # a refusal is the host's notice already
        return True

    # -- rendering ---------------------------------------------------------------------------
    def fit(self, screen_rows: int, cols: int) -> None:
        """Cap the panel for a screen of ``screen_rows`` rows drawn ``cols`` wide (the layer's
        :attr:`space`); the question scrolls inside. While :meth:`running`, the layer does
        this itself from the loop's screen before each frame; a layer drawn in less than the
        whole screen is fitted by its container (asks' REPL does)."""
        below = rows_of(self.editor, cols)
        if self.prompt is not None and self.port.focus.foreign_active:
            below += rows_of(self.prompt, cols)
        focused = self.port.focus.panel_focused
        self.panel.max_rows = self.space.panel_rows(screen_rows, below, focused=focused)

    def _fit_screen(self, size: Size) -> None:
        """:meth:`fit` to the running loop's screen (nothing before :meth:`running`)."""
        if self._loop is not None and size:
            self.fit(self._loop.screen.get_cols_rows()[1], size[0])

    def rows(self, size: tuple[int], focus: bool = False) -> int:
        """The layer's height at ``size``, the panel fitted to the running screen first."""
        self._fresh()
        self._fit_screen(size)
        return super().rows(size, focus)

    def pack(self, size: Size = (), focus: bool = False) -> tuple[int, int]:
        """The layer's size at ``size``, as :meth:`rows` gives it (urwid's ``Pile`` sizes a
        packed item by ``pack``, which ``WidgetWrap`` hands to the wrapped pile: a stale view
        would be measured before its rebuild and drawn after it, taller than its place)."""
        self._fresh()
        self._fit_screen(size)
        return self._w.pack(size, focus)

    def render(self, size: Size, focus: bool = False) -> urwid.Canvas:
        """Draw the layer, the panel fitted to the running screen first (:meth:`fit`)."""
        self._fresh()
        self._fit_screen(size)
        return super().render(size, focus)

    def _changed(self) -> None:
        # A change made by a key is drawn into the view at once (the key's later steps read
        # it). Changes from elsewhere (agents, timers: many between two frames when a hub is
        # busy) mark the view stale; it is rebuilt once, before the next size query, frame
        # or key: in an idle callback that runs before the loop's own (its frame), and in
        # :meth:`rows`, :meth:`render` and :meth:`keypress` for a layer drawn otherwise.
        if self._keying:
            self._refresh()
        else:
            self._stale = True
        if self._next_deadline() < self._timer_until:
            self._guard_changed.set()
        self._invalidate()
        has_waits = bool(self.port.live_waits)
        if has_waits and not self._had_waits:
            self._bell()
        self._had_waits = has_waits

    def _layout(self) -> None:
        port = self.port
        items: list[urwid.Widget] = []
        if port.tabs:
            items.append(self.panel)
        prompt_up = self.prompt is not None and port.focus.foreign_active
        if prompt_up:
            assert self.prompt is not None
            items.append(self.prompt)
        items.append(self.editor)
        pile = self._w
        if [w for w, _ in pile.contents] != items:
            pile.contents = [(w, pile.options("pack")) for w in items]
        keys = port.focus.where()[0]  # the cursor goes where the keys go
        if keys is KeysTo.PROMPT and prompt_up:
            focused: urwid.Widget = self.prompt  # type: ignore[assignment]
        elif keys is KeysTo.PANEL and port.tabs:
            focused = self.panel
        else:
            focused = self.editor
        pile.focus_position = items.index(focused)

    def _refresh(self) -> None:
        self._stale = False
        self.panel.refresh()
        self._layout()

    def _fresh(self) -> None:
        """Rebuild the view if a change since the last rebuild marked it stale."""
        if self._stale:
            self._refresh()

    # -- keys --------------------------------------------------------------------------------
    @property
    def commands(self) -> Mapping[Command, KeyHandler]:
        """The one handler table keys are run from: the panel's, the prompt's and the
        editor's commands, the embedder's ``commands=``, then the layer's own (which win)."""
        return self._commands

    def _command_table(
        self, app: Mapping[Command, Callable[[], object]]
    ) -> dict[Command, KeyHandler]:
        """The widgets' commands, the embedding app's, then the layer's own (which win)."""
        table: dict[Command, KeyHandler] = dict(self.panel.key_commands())
        table.update(self._decisions.table())
        for decision in (Command.PANEL_ALLOW, Command.PANEL_DENY):
            table[decision] = self._permission.guard(table[decision])
        if isinstance(self.editor, KeyCommands):
            table.update({c: self._typed(h) for c, h in self.editor.key_commands().items()})
        table.update({command: used(action) for command, action in app.items()})
        table[Command.FOCUS_TOGGLE] = used(self.port.toggle_focus)
        table[Command.COLLAPSE] = used(self.port.toggle_collapse)
        table[Command.PANEL_EDITOR] = used(self._edit_externally)
        table[Command.PANEL_PAUSE] = self._pause(table[Command.PANEL_PAUSE])
        table[Command.CHAT_INTERRUPT] = self._chat_esc(table.get(Command.CHAT_INTERRUPT))
        return table

    def keypress(self, size: Size, key: str) -> str | None:
        """Route one key to whoever has the keyboard (the panel, a prompt or your editor:
        the typing guard holds a blocking question's claim until a pause), run the command
        it is bound to there; return it if nothing here uses it (urwid's contract)."""
        self._fresh()
        self._keying = True
        try:
            return self._route_key(size, key)
        finally:
            self._keying = False

    def _route_key(self, size: Size, key: str) -> str | None:
        now = self._clock()
        self._decisions.size = size
        if self.port.focus.doubt is not None:  # a held decision key whose pause is over first
            self._decisions.deliver_due(now)
        command = self.keymap.command_for(Context.GLOBAL, key)
        if command in self._early:  # the app's own global command (Ctrl+C): not typing
            return self._commands[command](KeyPress(size, key, Context.GLOBAL, command, None, now))
        decision = self.port.decide(now, self._seen(key))
        return self._actions[decision.action](size, key, command, decision.route, now)

    def _typing(
        self, size: Size, key: str, command: Command | None, route: Route, now: float
    ) -> str | None:
        """``TYPING``: to the chat editor, or back to the app for its own editor."""
        self.last_context = Context.CHAT
        if route.target is self.port.focus.chat:
            return self._dispatch(size, key, Context.CHAT, command, None, now)
        return key  # another editor of the embedding app owns the keyboard

    def _stray(
        self, size: Size, key: str, _command: Command | None, _route: Route, now: float
    ) -> str | None:
        """``STRAY``: typing meant for somewhere else (:meth:`_stray_key`)."""
        return self._stray_key(size, key, now)

    def _drop_held(
        self, size: Size, key: str, command: Command | None, route: Route, now: float
    ) -> str | None:
        """``DROP_HELD``: the person did something else; the key is the panel's."""
        self.port.drop_decision()
        return self._panel_key(size, key, command, route, now)

    def _panel_key(
        self, size: Size, key: str, command: Command | None, route: Route, now: float
    ) -> str | None:
        """``PANEL``: the panel's key, in its context for the routed tab; a printable the
        panel's rows leave is stray."""
        context = self.panel.key_context_for(route.tab)
        if command is None:
            command = self.keymap.command_for(context, key)
        if command is not None and context is Context.PANEL and is_text_key(key):
            self.port.printable_command(key, route.tab, now)  # a digit, Space
        unused = self._dispatch(size, key, context, command, route.tab, now)
        if unused is not None and context is Context.PANEL and self._stray_after(route, unused):
            return self._stray_key(size, unused, now)
        return unused

    def _deliver_held(
        self, size: Size, key: str, command: Command | None, route: Route, now: float
    ) -> str | None:
        """The confirm key while a decision key is held: it counts now, where it was held."""
        at_panel = route.target is self.port.focus.panel
        context = self.panel.key_context_for(route.tab) if at_panel else Context.PROMPT
        self.last_context = context
        return self._decisions.confirm(KeyPress(size, key, context, command, route.tab, now))

    def _seen(self, key: str) -> KeySeen:
        """``key`` as the key machine sees it (:class:`~asks.core.focus.KeySeen`), resolved
        in the keymap once per key name."""
        seen = self._seen_keys.get(key)
        if seen is None:
            panel = self.keymap.command_for(Context.PANEL, key) is Command.PANEL_CONFIRM
            prompt = self.keymap.command_for(Context.PROMPT, key) is Command.PROMPT_CONFIRM
            seen = self._seen_keys[key] = KeySeen(is_text_key(key), panel, prompt)
        return seen

    @staticmethod
    def _stray_after(route: Route, unused: str) -> bool:
        """Is ``unused``, a key the panel's rows or the prompt left, typing meant elsewhere?"""
        if not is_text_key(unused):
            return False
        return decide(route.state, KeyEvent.UNUSED_PRINTABLE) is Action.STRAY

    def _dispatch(  # noqa: PLR0917
        self,
        size: Size,
        key: str,
        context: Context,
        command: Command | None,
        tab: Hashable | None,
        now: float,
    ) -> str | None:
        """Resolve ``key`` in ``context`` (unless a global command already did) and run it
        from the table, else give it to the context's text input."""
        self.last_context = context
        if command is None:
            command = self.keymap.command_for(context, key)
        press = KeyPress(size, key, context, command, tab, now)
        handler = None if command is None else self._commands.get(command)
        return (handler or self._text[context])(press)

    def _stray_key(self, size: Size, key: str, now: float) -> str | None:
        """A stray key: deliver a printable the panel or the prompt could not use where the host
        says (a decision key held at the prompt first: it was typing too)."""
        route = self.port.stray_key(now)
        self.last_context = Context.CHAT
        if route.target is self.port.focus.chat:
            for typed in route.first or "":
                self._dispatch(size, typed, Context.CHAT, None, None, now)
            return self._dispatch(size, key, Context.CHAT, None, None, now)
        return key  # another editor of the embedding app: the app delivers it

    # -- the prompt's keys (module docstring) ------------------------------------------------
    def _prompt_key(
        self, size: Size, key: str, command: Command | None, route: Route, now: float
    ) -> str | None:
        """A key at the prompt that has the keys; one it leaves that is printable is stray."""
        if command is None:
            command = self.keymap.command_for(Context.PROMPT, key)
        unused = self._dispatch(size, key, Context.PROMPT, command, None, now)
        if unused is not None and self.prompt is not None and self._stray_after(route, unused):
            return self._stray_key(size, unused, now)
        return unused

    def _pause(self, pause: KeyHandler) -> KeyHandler:
        """Esc pausing the panel: remember when, so its echo in chat is not an interrupt."""

        def run(press: KeyPress) -> str | None:
            unused = pause(press)
            if not self.port.focus.panel_focused:
                self._pause_esc_at = press.now
            return unused

        return run

    def _chat_esc(self, interrupt: KeyHandler | None) -> KeyHandler:
        """Esc in chat: swallowed within the guard after an Esc paused the panel,
        else the app's interrupt, else the editor's."""

        def run(press: KeyPress) -> str | None:
            if press.now - self._pause_esc_at < self.port.focus.guard:
                self._pause_esc_at = float("-inf")
                return None  # the echo of the Esc that paused the panel
            return (interrupt or self._chat_text)(press)

        return run

    def _typed(self, handler: KeyHandler) -> KeyHandler:
        """A key the chat editor handles: the chat line may have changed (drafts)."""

        def run(press: KeyPress) -> str | None:
            unused = handler(press)
            if self._chat_edit is not None:
                self._drafts.chat_changed()  # O(1): the keeper reads the line when it writes
            return unused

        return run

    def _chat_text(self, press: KeyPress) -> str | None:
        unused = self._editor_text(press)
        if self._chat_edit is not None:
            self._drafts.chat_changed()
        return unused

    def _prompt_text(self, press: KeyPress) -> str | None:
        return press.key if self._prompt_input is None else self._prompt_input(press)

    # -- background work ---------------------------------------------------------------------
    async def _guard_timer(self) -> None:
        """Engage a held-back claim once the person has paused for the guard interval, and
        clear the host's notice when its time is over. A change wakes it only when it brings
        the next deadline forward (a key that only moves it later, e.g. a panel key, does not
        cost a task switch)."""
        while True:
            deadline = self._next_deadline()
            self._timer_until = deadline
            if deadline == float("inf"):
                await self._guard_changed.wait()
                self._guard_changed = trio.Event()
                continue
            with trio.move_on_at(deadline):
                await self._guard_changed.wait()  # a change may bring a deadline forward
            self._guard_changed = trio.Event()
            self.tick(trio.current_time())

    def tick(self, now: float) -> None:
        """What the layer's timer does at ``now`` (:meth:`running` runs it at each deadline):
        a held claim or prompt takes the keys once the person paused, a held decision key whose
        pause is over is delivered to the prompt, an expired notice goes. Doing it twice, or
        before a deadline, changes nothing."""
        self.port.settle_guard(now)
        self._decisions.deliver_due(now)
        self.port.expire_notice(now)

    def _next_deadline(self) -> float:
        """When the guard timer has something to do next (``inf``: nothing is due)."""
        due = (self.port.guard_deadline(), self.port.notice_deadline())
        return min((d for d in due if d is not None), default=float("inf"))

    def _edit_externally(self) -> None:
        if self._loop is None or self._nursery is None:
            return  # not running (no screen to suspend): Ctrl+G does nothing
        self._nursery.start_soon(edit_externally, self._loop, self.port, self.panel)

    # The names before the rename (asks.core.renamed): they warn, then do the same.
    tick_nowait = renamed(tick, "tick_nowait")


def _text_input(widget: urwid.Widget) -> KeyHandler:
    """Where a widget's keys without a command go: its :meth:`KeyCommands.text_key`, else its
    ``keypress`` (decided once: a protocol check costs more than a key)."""
    if isinstance(widget, KeyCommands):
        return widget.text_key
    return lambda press: widget.keypress(press.size, press.key)


__all__ = ["LAYER_PALETTE", "AsksLayer", "FocusTarget", "ring_terminal_bell"]
