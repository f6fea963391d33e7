"""The transcript view: the chat stream, one widget per :class:`~asks.agent.transcript.Entry`.

Semantics:

* :meth:`TranscriptView.refresh` brings the view up to date with its transcript in
  O(new entries + entries still streaming + queued messages): new entries are appended; an
  entry drawn while it was not ``done`` gets its text redrawn in place when its text or state
  changed, until it is done. The app subscribes ``refresh`` to the transcript.
* Widgets only for what is drawn: the list box reads its rows from an :class:`EntryWalker`,
  which builds an entry's widget when the row is first read and keeps it while it is among the
  last :data:`KEPT` read (or still streaming): a transcript of thousands of entries (a hub's
  agents asking) holds at most a thousand widgets, and an entry read again after that gets a fresh
  widget that draws the same. A kept widget is never replaced (identity is stable).
* Queued messages (sent, not read by the agent yet: ``Transcript.queued``) are drawn after
  every entry, ``you (queued) › …`` with a dim body, and stay last while entries arrive above
  them; when the agent reads one it goes from there and its text returns as an ordinary
  ``you › `` entry in the conversation. Queueing a message shows it (the view follows).
* Every kind is recognisable without colour, by its prefix: ``you › ``, ``agent › `` (or
  ``agent (MODEL) › `` when the entry's title names the model), ``⚙ `` tool line,
  ``? asked: `` question card (in a box; its text hangs under the first question, so
  numbered questions line up), ``✔ result (OUTCOME): `` and
  ``✉ feedback (MODE): `` cards (indented), ``⚑ permission allowed: ``/``⚑ permission denied: ``
  decisions, ``✖ `` error (with its title), ``· `` notice.
  A streaming agent entry ends in ``…`` until it is done.
* All entry text is sanitised (:func:`~asks.sanitize.sanitize_text`, newlines kept; titles
  with :func:`~asks.sanitize.sanitize_line`): escape sequences are never drawn.
* Following: the view keeps the newest entry in sight while it *follows* (initially true).
  Scrolling up (:meth:`scroll`, PgUp/PgDn keys, mouse wheel) stops following; scrolling back to
  where the bottom is visible resumes it, and so does a new message of the person (a ``USER``
  entry: sending a message always shows it). While it does not follow, the view's last row is
  a marker saying so: ``↓ scrolled up · PgDn for the newest`` or, once entries arrived below,
  ``↓ N new below · PgDn``.
* History: a transcript that starts with only the end of a resumed conversation
  (``Transcript.history``) is extended from it when scrolling up (a page up, the wheel) finds
  the top of what is loaded in view: the older entries' widgets go in front, and the rows in
  view stay where they were (the list's focus moves with its entry), so scrolling goes on.
* The view is not selectable (a container never moves the keyboard onto it, e.g. on ``up``
  from the editor); the app runs :meth:`TranscriptView.scroll` for the keymap's
  ``CHAT_SCROLL_UP``/``CHAT_SCROLL_DOWN`` (PgUp/PgDn). If keys are sent to it anyway, those
  two commands' keys scroll and every other key is returned.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Final

import urwid
from urwid.widget import AbstractFlowWidget as FlowWidget

from asks.agent.transcript import QUEUED, Entry, EntryKind, Transcript
from asks.core.i18n import N_, _
from asks.sanitize import sanitize_line, sanitize_text
from asks.widgets.keymap import Command, Context, Keymap, build_keymap
from asks.widgets.keys import KeyHandler, KeyPress, handle

BoxSize = tuple[int, int]
Markup = list[tuple[str, str] | str]

STREAMING_MARK: Final = " …"
WHEEL_UP: Final = 4  # urwid's button number for the mouse wheel turned up
CARD_INDENT: Final = 2
SCROLLED_MARK: Final = N_("↓ scrolled up · PgDn for the newest")
# entry titles that are words of ours (outcomes, delivery modes, decisions), for extraction
TITLES: Final = (
    N_("answered"),
    N_("partial"),
    N_("declined"),
    N_("deferred"),
    N_("withdrawn"),
    N_("interrupted"),
    N_("queued"),
    N_("steer"),
    N_("wake"),
    N_("allowed"),
    N_("denied"),
    N_("model error"),
    N_("agent error"),
    N_("web"),
)


def _listbox_key(command: str) -> str:
    """The key urwid's list box runs ``command`` for: scrolling pages the inner list box by
    its own keys (urwid's command map, read, never changed), not by a key of ours."""
    return next(key for key, bound in urwid.command_map.items() if bound == command)


PALETTE: Final = (
    ("transcript.user", "light cyan,bold", "default", "bold"),
    ("transcript.agent", "light green,bold", "default", "bold"),
    ("transcript.tool", "dark gray", "default", "default"),
    ("transcript.question", "yellow,bold", "default", "bold"),
    ("transcript.card", "yellow", "default", "default"),
    ("transcript.body", "default", "default", "default"),
    ("transcript.result", "light green", "default", "bold"),
    ("transcript.feedback", "light magenta", "default", "bold"),
    ("transcript.decision", "light blue", "default", "bold"),
    ("transcript.error", "light red,bold", "default", "bold,standout"),
    ("transcript.notice", "dark gray", "default", "default"),
    ("transcript.streaming", "dark gray", "default", "default"),
    ("transcript.queued", "dark gray", "default", "default"),
    ("transcript.scrolled", "black", "yellow", "standout"),
)


def scrolled_mark(unseen: int) -> str:
    """The marker row of a view that does not follow (module docstring)."""
    return _("↓ {count} new below · PgDn").format(count=unseen) if unseen else _(SCROLLED_MARK)


def entry_prefix(entry: Entry) -> str:
    """The colour-free label that starts an entry's first row."""
    title = sanitize_line(_(entry.title))
    match entry.kind:
        case EntryKind.USER:
            return _("you ({title}) › ").format(title=title) if title else _("you › ")
        case EntryKind.AGENT:
            return _("agent ({title}) › ").format(title=title) if title else _("agent › ")
        case EntryKind.TOOL:
            return "⚙ "
        case EntryKind.QUESTION:
            return _("? asked: ")
        case EntryKind.RESULT:
            return _("✔ result ({title}): ").format(title=title) if title else _("✔ result: ")
        case EntryKind.FEEDBACK:
            return _("✉ feedback ({title}): ").format(title=title) if title else _("✉ feedback: ")
        case EntryKind.DECISION:
            return _("⚑ permission {title}: ").format(title=title) if title else _("⚑ permission: ")
        case EntryKind.ERROR:
            return f"✖ {title}: " if title else "✖ "
        case EntryKind.NOTICE:
            return "· "
    return ""


def entry_markup(entry: Entry, *, prefix: bool = True) -> Markup:
    """Text markup of an entry: attributed prefix (unless ``prefix`` is false: a question
    card draws it in its own column), sanitised body, streaming mark."""
    markup: Markup = [(f"transcript.{entry.kind.value}", entry_prefix(entry))] if prefix else []
    body = sanitize_text(entry.text)
    if body:
        markup.append(("transcript.queued", body) if entry.title == QUEUED else body)
    if not entry.done:
        markup.append(("transcript.streaming", STREAMING_MARK if body else STREAMING_MARK.strip()))
    return markup


def entry_widget(entry: Entry) -> tuple[FlowWidget, urwid.Text]:
    """A fresh widget for ``entry`` (cards are boxed or indented) and its text widget."""
    if entry.kind is EntryKind.QUESTION:
        text = urwid.Text(entry_markup(entry, prefix=False))
        label = entry_prefix(entry)
        width = urwid.calc_width(label, 0, len(label))
        hanging = urwid.Columns([(width, urwid.Text(("transcript.question", label))), text])
        body = urwid.AttrMap(hanging, "transcript.body")
        return urwid.AttrMap(urwid.LineBox(body), "transcript.card"), text
    text = urwid.Text(entry_markup(entry))
    if entry.kind in (EntryKind.RESULT, EntryKind.FEEDBACK):
        return urwid.Padding(text, left=CARD_INDENT), text
    return text, text


# Entry widgets kept beyond the pinned ones: more rows than any terminal has, so a frame never
# rebuilds what the frame before it drew (a list box reads its rows in order: a bound below
# them would miss on every row).
KEPT: Final = 1000


class EntryWalker(urwid.ListWalker[int, FlowWidget]):
    """The transcript's rows for its list box: one per entry (the drawn entries, then the
    queued messages), addressed by index.

    An entry's widget (:func:`entry_widget`) is built when the list box first reads it and
    kept while it is among the ``kept`` last read or is pinned (an entry still streaming,
    whose text widget is redrawn in place); read again after that, it is built afresh from the
    entry and draws the same. So a long transcript holds widgets for what was drawn lately
    only, and reading a row costs the same whatever the transcript's length. The focus
    follows its entry across insertions and replacements, as ``urwid.SimpleFocusListWalker``
    moves it."""

    def __init__(self, kept: int = KEPT) -> None:
        self.entries: list[Entry] = []
        self.focus = 0
        self._kept = kept
        # id(entry) → (the entry, its widget, its text widget), least recently read first
        self._built: dict[int, tuple[Entry, FlowWidget, urwid.Text]] = {}
        self._pinned: dict[int, tuple[Entry, FlowWidget, urwid.Text]] = {}

    @property
    def built(self) -> int:
        """How many entry widgets are held now (pinned ones included)."""
        return len(self._built) + len(self._pinned)

    def widgets(self, position: int) -> tuple[FlowWidget, urwid.Text]:
        """The widget of the entry at ``position`` and its text widget (built if not held)."""
        entry = self.entries[position]
        key = id(entry)
        held = self._pinned.get(key) or self._built.pop(key, None)
        if held is None:
            held = (entry, *entry_widget(entry))
        if key not in self._pinned:
            self._built[key] = held  # now the last read
            while len(self._built) > self._kept:
                del self._built[next(iter(self._built))]
        return held[1], held[2]

    def pin(self, position: int) -> urwid.Text:
        """Keep the widget of the entry at ``position`` until :meth:`unpin`; its text widget."""
        widget, text = self.widgets(position)
        entry = self.entries[position]
        self._pinned[id(entry)] = (entry, widget, text)
        self._built.pop(id(entry), None)
        return text

    def unpin(self, entry: Entry) -> None:
        """Let ``entry``'s widget go like any other (kept while among the last read)."""
        held = self._pinned.pop(id(entry), None)
        if held is not None:
            self._built[id(entry)] = held

    def replace(self, start: int, stop: int, entries: list[Entry]) -> None:
        """Put ``entries`` in place of positions ``start`` to ``stop`` (an insertion when
        equal); the focus stays on its entry, or goes to the one after those replaced."""
        count = len(self.entries)
        focus = self.focus
        if not count:
            focus = len(entries) - 1
        else:
            if start + len(entries) <= focus < stop:
                focus = stop
            if stop <= focus:
                focus += len(entries) - (stop - start)
        self.entries[start:stop] = entries
        self.focus = max(0, min(focus, len(self.entries) - 1))
        self._modified()

    def clear(self) -> None:
        """No rows (and no widget held)."""
        self.entries.clear()
        self._built.clear()
        self._pinned.clear()
        self.focus = 0
        self._modified()

    # -- urwid's list walker -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, position: int) -> FlowWidget:
        if not 0 <= position < len(self.entries):
            raise IndexError(position)
        return self.widgets(position)[0]

    def __iter__(self) -> Iterator[FlowWidget]:
        for position in range(len(self.entries)):
            yield self.widgets(position)[0]

    def set_focus(self, position: int) -> None:
        if not 0 <= position < len(self.entries):
            raise IndexError(f"No widget at position {position}")
        self.focus = position
        self._modified()

    def next_position(self, position: int) -> int:
        if position + 1 >= len(self.entries):
            raise IndexError(position)
        return position + 1

    def prev_position(self, position: int) -> int:
        if position <= 0:
            raise IndexError(position)
        return position - 1

    def positions(self, *, reverse: bool = False) -> Iterable[int]:
        count = len(self.entries)
        return range(count - 1, -1, -1) if reverse else range(count)


class TranscriptView(urwid.WidgetWrap["urwid.ListBox[int]"]):
    """A scrolling list of transcript entries; see the module docstring."""

    def __init__(self, transcript: Transcript, keymap: Keymap | None = None) -> None:
        self._transcript = transcript
        self._keymap = keymap or build_keymap()
        self._walker = EntryWalker()
        self._listbox: urwid.ListBox[int] = urwid.ListBox(self._walker)
        # entries drawn while not done: index → (their text widget, (text, done) as drawn)
        self._open: dict[int, tuple[urwid.Text, tuple[str, bool]]] = {}
        self._drawn = 0  # entries with a widget (the walker's first rows; queued ones follow)
        self._queued: list[Entry] = []  # the queued messages drawn after them, in order
        self._following = True
        self._pin = True  # the next render puts the last row at the bottom (while following)
        self._size: BoxSize | None = None  # the list's size at the last render (no marker row)
        self._unseen = 0  # entries appended while not following
        self._marker = urwid.Text("", align="center", wrap="ellipsis")
        self._commands: Mapping[Command, KeyHandler] = {
            Command.CHAT_SCROLL_UP: self._scroll_key(-1),
            Command.CHAT_SCROLL_DOWN: self._scroll_key(1),
        }
        super().__init__(self._listbox)
        self.refresh()

    # -- public API ----------------------------------------------------------------------
    @property
    def following(self) -> bool:
        """Whether new entries scroll into view."""
        return self._following

    @property
    def entry_widgets(self) -> tuple[FlowWidget, ...]:
        """The widgets drawn for the entries, in order (for tests and hit-testing)."""
        return tuple(self._walker)

    def refresh(self) -> None:
        """Append widgets for new entries, redraw the ones still streaming, redraw the queued
        messages after them when they changed."""
        entries = self._transcript.entries
        if len(entries) < self._drawn:  # the list was replaced: start over
            self._walker.clear()
            self._open.clear()
            self._drawn, self._queued = 0, []
        for index in list(self._open):
            self._redraw_open(index, entries[index])
        for index in range(self._drawn, len(entries)):
            entry = entries[index]
            self._walker.replace(index, index, [entry])  # before the queued messages
            self._drawn = index + 1
            if not entry.done:
                self._open[index] = (self._walker.pin(index), (entry.text, entry.done))
            if entry.kind is EntryKind.USER:
                self._follow()  # the person sent a message: show it
            elif not self._following:
                self._unseen += 1
        self._refresh_queued()
        if self._following:
            self._request_pin()
        else:
            self._invalidate()  # the marker's count

    def _refresh_queued(self) -> None:
        queued = self._transcript.queued
        if queued == self._queued:  # the same entries (identity) in the same order
            return
        sent = any(entry not in self._queued for entry in queued)
        self._walker.replace(self._drawn, len(self._walker), list(queued))
        self._queued = list(queued)
        if sent:
            self._follow()  # the person sent a message: show it

    def follow(self) -> None:
        """Go back to the bottom and follow again (e.g. when the person sends a message that
        the agent will only show when its turn starts)."""
        self._follow()

    def scroll(self, pages: int) -> None:
        """Scroll by ``pages`` screens (negative: up); reaching the bottom resumes following.

        Pages are counted in the list's size *with* the marker row, the size it has while
        scrolled, so PgUp then PgDn lands back at the bottom."""
        key = _listbox_key(urwid.CURSOR_PAGE_UP if pages < 0 else urwid.CURSOR_PAGE_DOWN)
        if self._size is None:
            return
        cols, rows = self._size
        body = (cols, rows - 1) if self._following and rows >= 2 else self._size
        for _page in range(abs(pages)):
            if pages < 0:
                self._load_older(body)
            self._listbox.keypress(body, key)
        self._update_following(body)

    # -- urwid -----------------------------------------------------------------------------
    @property
    def marker_text(self) -> str:
        """The marker row's text while not following, else ``""``."""
        return "" if self._following else scrolled_mark(self._unseen)

    def render(self, size: BoxSize, focus: bool = False) -> urwid.Canvas:  # type: ignore[override]
        body = self._body_size(size)
        if self._following and (self._pin or body != self._size):
            self._pin_bottom(body, focus)
        self._pin = False
        self._size = body
        canvas = self._listbox.render(body, focus)
        if body == size:
            return canvas
        self._marker.set_text(("transcript.scrolled", self.marker_text))
        marker = self._marker.render((size[0],))
        return urwid.CanvasCombine([(canvas, None, focus), (marker, None, False)])

    def selectable(self) -> bool:
        return False

    def keypress(self, size: BoxSize, key: str) -> str | None:  # type: ignore[override]
        return handle(self._keymap, Context.CHAT, self, size, key)

    def key_commands(self) -> Mapping[Command, KeyHandler]:
        return self._commands

    def text_key(self, press: KeyPress) -> str | None:
        return press.key

    def _scroll_key(self, pages: int) -> KeyHandler:
        def scroll(press: KeyPress) -> str | None:
            self._size = self._body_size(press.size)  # type: ignore[arg-type]  # a box size
            self.scroll(pages)
            return None

        return scroll

    def mouse_event(  # type: ignore[override]  # noqa: PLR0917
        self, size: BoxSize, event: str, button: int, col: int, row: int, focus: bool
    ) -> bool | None:
        body = self._body_size(size)
        if row >= body[1]:
            return False  # the marker row
        if button == WHEEL_UP and event == "mouse press":
            self._load_older(body)  # as a page up does
        handled = self._listbox.mouse_event(body, event, button, col, row, focus)
        self._update_following(body)
        return handled

    # -- helpers ---------------------------------------------------------------------------
    def _load_older(self, size: BoxSize) -> None:
        """With the top of what is loaded in view, put the history's next entries in front
        (module docstring): at least a screenful, so the page up has rows to go to."""
        transcript = self._transcript
        if transcript.complete or "top" not in self._listbox.ends_visible(size):
            return
        added = transcript.load_older(max(size[1], 1))
        if not added:
            return
        self._walker.replace(0, 0, transcript.entries[:added])
        self._drawn += added
        self._open = {index + added: drawn for index, drawn in self._open.items()}

    def _redraw_open(self, index: int, entry: Entry) -> None:
        text, drawn = self._open[index]
        if (entry.text, entry.done) != drawn:
            text.set_text(entry_markup(entry, prefix=entry.kind is not EntryKind.QUESTION))
        if entry.done:
            del self._open[index]
            self._walker.unpin(entry)
        else:
            self._open[index] = (text, (entry.text, entry.done))

    def _body_size(self, size: BoxSize) -> BoxSize:
        """The list's part of ``size``: all of it, less the marker row while not following."""
        cols, rows = size
        return size if self._following or rows < 2 else (cols, rows - 1)

    def _follow(self) -> None:
        self._following = True
        self._unseen = 0
        self._request_pin()

    def _request_pin(self) -> None:
        self._pin = True
        self._invalidate()

    def _pin_bottom(self, size: BoxSize, focus: bool) -> None:
        """Focus the last entry and show its last row on the last row of the view.

        ``ListBox.scroll_to_bottom`` alone shows the *top* of an entry taller than the view
        (a long streaming reply), so the inset is set explicitly for those.
        """
        maxcol, maxrow = size
        if not len(self._walker) or not maxrow:
            return
        listbox = self._listbox
        listbox.scroll_to_bottom()
        listbox.calculate_visible(size, focus)  # completes the pending focus move
        last = listbox.focus
        rows = 0 if last is None else last.rows((maxcol,), focus)
        if rows > maxrow:
            listbox.shift_focus(size, maxrow - rows)

    def _update_following(self, size: BoxSize) -> None:
        if "bottom" in self._listbox.ends_visible(size):
            self._follow()
        else:
            self._following = False
            self._invalidate()
