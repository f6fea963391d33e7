"""The question panel: an urwid view of the host's :class:`~asks.host.panelport.PanelPort`.

:class:`QuestionPanel` renders the host's state and turns keys into host commands; it keeps no
policy of its own (docs/design.md, "Layers"). The app subscribes :meth:`QuestionPanel.refresh` to
the host (``host.subscribe(panel.refresh)``); every render reads only what the last refresh built.

What it shows, by ``host.mode`` and focus:

* **expanded** — a bordered :class:`~asks.widgets.panel.frame.Frame`: the tab bar
  (:mod:`~asks.widgets.panel.tabbar`), the question and its rows
  (:mod:`~asks.widgets.panel.rows`) or the Review tab (:mod:`~asks.widgets.panel.review`), and
  the notice and key hints (:mod:`~asks.widgets.panel.footer`). The border is solid while the
  panel has the keyboard, dotted while it does not, and carries the warning attribute and
  ``⚠ required`` while a blocking question is pending. When taller than ``max_rows`` the middle
  scrolls (see :mod:`~asks.widgets.panel.frame`).
* **collapsed** — one dim hint row. **paused** — a two-row pending card
  (:mod:`~asks.widgets.panel.compact`).

The panel owns the view state the host does not: the reply and notes editors, whether notes
are open, and each tab's scroll position. Widgets are reused across refreshes when their inputs
did not change (:mod:`~asks.widgets.panel.memo`).

Keys: the layer widget (:mod:`asks.widgets.layer`) decides that a key is the panel's (focus,
typing guard), resolves it once in :meth:`QuestionPanel.key_context_for` the tab it was aimed
at and runs the panel's handler (:meth:`QuestionPanel.key_commands`, :mod:`asks.widgets.keys`).
When the cursor is on ``Type something.`` or the notes editor is open, the key context is
``REPLY``: its bindings run (Enter confirms, Alt+Enter inserts a newline; Up/Down go to the
editor first and move between rows only from its first/last line), and every other key goes
to the editor. Otherwise ``PANEL`` bindings become ``host.command(PanelCommand, tab)``;
digits 1–6 only move the cursor to that row (a digit with no such row is not used). Unhandled
keys are returned, as urwid expects (the layer treats a returned printable as a stray key).
:meth:`QuestionPanel.keypress` is the same lookup and table on its own.

All model text goes through :mod:`asks.sanitize` before it reaches a widget.

Launch cost: the parts that draw questions (:mod:`~asks.widgets.panel.frame`, ``body``,
``rows``, ``review``, ``tabbar``, ``compact``: ~10 M instructions to import) load when the first
question is drawn, not with the panel: it is built with the layer but shows nothing until
then (an empty pile); ``tests/test_launch_lazy.py`` pins them off the first frame.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, cast

import urwid

from asks.core.drafts import Draft, custom_row, row_count
from asks.core.i18n import _, language
from asks.core.model import QuestionRef
from asks.core.permission import is_permission
from asks.core.tabs import ReviewKey, TabKey
from asks.host.commands import PanelCommand, PanelMode
from asks.host.panelport import PanelPort
from asks.sanitize import sanitize_line
from asks.widgets.keymap import PANEL_COMMANDS, ROW_JUMPS, Command, Context, Keymap
from asks.widgets.keys import KeyHandler, KeyPress, handle
from asks.widgets.panel.footer import Footer
from asks.widgets.panel.markup import (
    BORDER_COLS,
    DEFAULT_MAX_ROWS,
    PLACEHOLDER,
    Markup,
    Size,
)
from asks.widgets.panel.memo import Memo

if TYPE_CHECKING:  # loaded when the first question is drawn (module docstring)
    from asks.widgets.panel.body import Body
    from asks.widgets.panel.frame import Border, Frame, Scroll
    from asks.widgets.panel.review import ReviewTab
    from asks.widgets.panel.rows import QuestionRows
    from asks.widgets.panel.tabbar import ChipNames, ChipState, TabBar

COMPACT_ROWS = 12  # a panel shorter than this gets one row of key hints
HEADERS_SLACK = 64  # chip texts kept beyond twice the tabs before the cache is pruned
EditAction = Callable[[urwid.Edit, tuple[int]], object]  # what a key does to the active editor


def warm_up() -> None:
    """Import the parts that draw a question now (module docstring: the first frame does not
    load them), off the path of the first question: a REPL's background warm-up."""
    from asks.widgets.panel import body, compact, frame, review, rows, tabbar  # noqa: F401, PLC0415


class QuestionPanel(urwid.WidgetWrap[urwid.Widget]):
    """The question panel over ``host`` (see module docstring). Flow widget."""

    def __init__(
        self,
        host: PanelPort,
        keymap: Keymap,
        *,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> None:
        self._host = host
        self._keymap = keymap
        self._max_rows = max_rows
        self._reply = urwid.Edit(multiline=True, placeholder=("panel.placeholder", _(PLACEHOLDER)))
        self._notes = urwid.Edit(multiline=True)
        self._group_note = urwid.Edit(multiline=True)  # the Review tab's note for all
        self._memo = Memo()
        self._parts: tuple[QuestionRows, ReviewTab] | None = None  # from the first question on
        self._footer = Footer(host, keymap, self._memo)
        self._shown: TabKey | None = None
        self._notes_open = False
        self._scrolls: dict[TabKey, Scroll] = {}
        self._headers: dict[TabKey, str] = {}  # a question's chip text, once made
        self._texts: dict[str, str] = {}  # each chip text once: the questions share it
        self._names: tuple[tuple[TabKey, ...], ChipNames | None, str] = ((), None, "")
        self._frame: Frame | None = None
        self._counted: tuple[tuple[TabKey, ...], int] = ((), 0)
        self._agents_of: tuple[tuple[TabKey, ...], tuple[str, ...]] = ((), ())
        self._pruned_for: tuple[TabKey, ...] | None = None
        self._index: tuple[tuple[TabKey, ...], dict[TabKey, int]] = ((), {})
        self._bar: tuple[tuple[TabKey, ...], Hashable, TabKey | None, TabBar | None] = (
            (),
            None,
            None,
            None,
        )
        self._commands = self._command_table()
        super().__init__(urwid.Pile([]))
        self.refresh()

    # ------------------------------------------------------------------ state for the app
    @property
    def max_rows(self) -> int:
        return self._max_rows

    @max_rows.setter
    def max_rows(self, rows: int) -> None:
        """The app clamps this, e.g. to half the screen height (rebuilds only on change)."""
        rows = max(3, rows)
        if rows != self._max_rows:
            self._max_rows = rows
            self.refresh()

    @property
    def key_context(self) -> Context:
        """The keymap context of the next key: ``REPLY`` while an editor is active."""
        return self.key_context_for(self._host.selected)

    @property
    def notes_open(self) -> bool:
        return self._notes_open

    def selectable(self) -> bool:
        return True

    def refresh(self) -> None:
        """Re-read the host and rebuild the view (subscribe this to the host).

        Parts whose inputs did not change are reused (see :class:`Memo` and :class:`Row`).
        """
        self._sync_editors()
        self._frame = None
        host = self._host
        if not host.tabs:
            self._w = urwid.Pile([])
            return
        from asks.widgets.panel import compact  # noqa: PLC0415 (module docstring)

        if host.mode is PanelMode.COLLAPSED:
            self._w = compact.collapsed(self._keymap, self._pending_count(), self._agents())
        elif host.mode is PanelMode.PAUSED and not host.focus.panel_focused:
            self._w = compact.paused(host, self._keymap, self._pending_count())
        else:
            self._frame = self._expanded()
            self._w = self._frame

    def _sync_editors(self) -> None:
        """Load the editors from the selected tab's draft when the tab or the draft changed."""
        tab = self._host.selected
        if self._pruned_for is not self._host.tabs:  # per tab list, not per key
            self._pruned_for, shown = self._host.tabs, self._host.has_tab
            self._scrolls = {t: s for t, s in self._scrolls.items() if shown(t)}
            if self._parts is not None:
                self._parts[0].prune(shown)
        draft = self._host.draft(tab) if isinstance(tab, QuestionRef) else Draft()
        if tab != self._shown:
            self._shown, self._notes_open = tab, False
            self._reply.set_edit_text(draft.custom_text)
            self._reply.set_edit_pos(min(draft.caret, len(draft.custom_text)))
        placeholder = ("panel.placeholder", _(PLACEHOLDER))  # follows a language switch
        if self._reply.placeholder != placeholder:
            self._reply.placeholder = placeholder
        if self._reply.edit_text != draft.custom_text:  # changed elsewhere (restore, Ctrl+G)
            self._reply.set_edit_text(draft.custom_text)
            self._reply.set_edit_pos(min(draft.caret, len(draft.custom_text)))
        if self._notes.edit_text != draft.notes:
            self._notes.set_edit_text(draft.notes)
        note = self._host.group_note(tab.call_id) if isinstance(tab, ReviewKey) else ""
        if self._group_note.edit_text != note:
            self._group_note.set_edit_text(note)
            self._group_note.set_edit_pos(len(note))

    # ------------------------------------------------------------------ compact modes
    def _pending_count(self) -> int:
        """Question tabs (not Review); counted once per tab list, not per key."""
        tabs = self._host.tabs
        if self._counted[0] is not tabs:  # isinstance mapped at C speed
            self._counted = (tabs, sum(map(isinstance, tabs, itertools.repeat(QuestionRef))))
        return self._counted[1]

    def _agents(self) -> tuple[str, ...]:
        """The labels of the agents the tabs' questions are from, in the panel's order
        (the session's own agent is not named); once per tab list, not per key."""
        tabs = self._host.tabs
        if self._agents_of[0] is not tabs:
            found = (a for a, _ in self._host.pending_by_agent() if a is not None)
            self._agents_of = (tabs, tuple(found))
        return self._agents_of[1]

    # ------------------------------------------------------------------ expanded
    def _question_parts(self) -> tuple[QuestionRows, ReviewTab]:
        """A question's rows and the Review tab, built for the first question shown."""
        if self._parts is None:
            from asks.widgets.panel.review import ReviewTab  # noqa: PLC0415 (module docstring)
            from asks.widgets.panel.rows import QuestionRows  # noqa: PLC0415

            rows = QuestionRows(self._memo, self._reply, self._notes)
            review = ReviewTab(self._host, self._keymap, self._memo, self._header, self._group_note)
            self._parts = (rows, review)
        return self._parts

    def _expanded(self) -> Frame:
        from asks.widgets.panel.frame import Frame, Scroll  # noqa: PLC0415 (module docstring)

        host = self._host
        tab = host.selected
        assert tab is not None
        if isinstance(tab, ReviewKey):
            review = self._question_parts()[1]
            question, body, anchor = review.build(tab, notes_open=self._notes_open)
        else:
            question, body, anchor = self._question(tab)
        scroll = self._scrolls.setdefault(tab, Scroll())
        return Frame(
            border=self._border(),
            tabbar=self._tabbar(),
            question=question,
            body=body,
            footer=self._footer.build(
                tab,
                editing=self._editing(tab),
                notes_open=self._notes_open,
                compact=self._max_rows < COMPACT_ROWS,
            ),
            max_rows=self._max_rows,
            scroll=scroll,
            anchor=anchor,
            keyboard=host.focus.keys_to_panel,
            memo=self._memo,
        )

    def _border(self) -> Border:
        from asks.widgets.panel.frame import DOTTED, SOLID, Border  # noqa: PLC0415

        host = self._host
        focused = host.focus.keys_to_panel
        glyphs = SOLID if focused else DOTTED
        count = self._pending_count()
        title: list[Markup] = [("panel.title", _("Questions ({count})").format(count=count))]
        if host.live_waits:
            title.append(("panel.warning", " ⚠ " + _("required")))
            if host.focus.claim_waiting:
                title.append(("panel.warning", " · " + _("after the open prompt")))
            return Border(glyphs, "panel.border.warning", title)
        return Border(glyphs, "panel.border.focus" if focused else "panel.border", title)

    def _tabbar(self) -> TabBar:
        """The tab bar; rebuilt only when the tabs, a chip's state or the selection changed.

        Per key this is O(1) in the number of tabs: the bar is kept while the tab list (a
        new tuple), the host's chip revision and the selection are the same, and a new bar
        reads the state of the chips it shows only (:class:`TabBar`)."""
        host = self._host
        inputs = (host.chips_revision(), language())
        tabs, selected = host.tabs, host.selected
        kept_tabs, kept_inputs, kept_selected, bar = self._bar
        if bar is not None and kept_tabs is tabs and kept_inputs == inputs:
            if kept_selected != selected:
                bar = bar.with_selected(self._selected_index(tabs, selected))
        else:
            from asks.widgets.panel.tabbar import TabBar  # noqa: PLC0415 (module docstring)

            names = self._chip_names(tabs)
            bar = TabBar(
                names, lambda i: self._chip_state(tabs[i]), self._selected_index(tabs, selected)
            )
        self._bar = (tabs, inputs, selected, bar)
        return bar

    def _selected_index(self, tabs: tuple[TabKey, ...], selected: TabKey | None) -> int:
        """The position of ``selected`` among ``tabs`` (0 if none)."""
        if selected is None:
            return 0
        index = self._host.tab_index(selected)  # the host's own index of its tab list
        if index is not None and index < len(tabs) and tabs[index] == selected:
            return index
        # equal, not identical: the host may hold an equal ReviewKey built elsewhere
        return self._tab_index(tabs).get(selected, 0)

    def _tab_index(self, tabs: tuple[TabKey, ...]) -> dict[TabKey, int]:
        """Position of each tab (first of equal keys), kept while the tab list is the same."""
        if self._index[0] is not tabs:
            index: dict[TabKey, int] = {}
            for i, tab in enumerate(tabs):
                index.setdefault(tab, i)
            self._index = (tabs, index)
        return self._index[1]

    def _chip_state(self, tab: TabKey) -> ChipState:
        from asks.widgets.panel.tabbar import ChipState  # noqa: PLC0415 (module docstring)

        host = self._host
        if isinstance(tab, QuestionRef) and host.draft(tab).staged is not None:
            return ChipState.STAGED
        return ChipState.REQUIRED if host.is_required(tab) else ChipState.PLAIN

    def _chip_names(self, tabs: tuple[TabKey, ...]) -> ChipNames:
        """The chip names of ``tabs`` (kept while the tabs and the language are the same),
        made for the chips the bar reads (:class:`ChipNames`): a chip's text, and those of the
        chips before it, which its number counts. Texts known already are looked up at C
        speed, the others made once (:meth:`_header`)."""
        if self._names[0] is not tabs or self._names[2] != language():
            from asks.widgets.panel.tabbar import ChipNames  # noqa: PLC0415 (module docstring)

            if self._names[2] != language():
                self._headers = {}  # a Review chip's text is the language's
            self._keep_headers(tabs)
            self._names = (tabs, ChipNames(len(tabs), self._bases_of(tabs)), language())
        names = self._names[1]
        assert names is not None  # made above for this tab list
        return names

    def _bases_of(self, tabs: tuple[TabKey, ...]) -> Callable[[int, int], list[str]]:
        """The chip texts of ``tabs[start:stop]``, for :class:`ChipNames`."""

        def bases(start: int, stop: int) -> list[str]:
            some = tabs[start:stop]
            texts: list[str | None] = list(map(self._headers.get, some))
            with contextlib.suppress(ValueError):  # no (more) tab without its text
                at = texts.index(None)
                while True:
                    tab = some[at]
                    texts[at] = _("Review") if isinstance(tab, ReviewKey) else self._header(tab)
                    at = texts.index(None, at + 1)
            return cast("list[str]", texts)

        return bases

    def _keep_headers(self, tabs: tuple[TabKey, ...]) -> None:
        """Forget the chip texts of the questions no longer among ``tabs`` once the cache
        holds more than twice the tabs: one rebuild per ``len(tabs)`` forgotten, so O(1) per
        tab over time, and the cache stays O(tabs) (never pruned before)."""
        if len(self._headers) > 2 * len(tabs) + HEADERS_SLACK:
            old = self._headers
            self._headers = {tab: old[tab] for tab in tabs if tab in old}
            self._texts = {text: text for text in self._headers.values()}

    def _header(self, ref: QuestionRef) -> str:
        """The sanitised chip text of a question (cached: a question never changes; one
        string per distinct text, shared by the questions whose chips read the same)."""
        header = self._headers.get(ref)
        if header is None:
            brief = self._host.brief(ref)  # a resumed question is not decoded for its chip
            header = sanitize_line(brief.header) or "?"
            if is_permission(brief):  # an agent's permission request: who, then what
                header = f"{sanitize_line(brief.source or '')} · {header}"
            elif brief.source:  # several agents share the host: say who asked
                header = f"{header} ({sanitize_line(brief.source)})"
            header = self._headers[ref] = self._texts.setdefault(header, header)
        return header

    def _question(self, ref: QuestionRef) -> tuple[urwid.Widget, Body, Hashable]:
        host = self._host
        return self._question_parts()[0].build(
            ref,
            host.question(ref),
            host.draft(ref),
            active=host.focus.keys_to_panel,
            notes_open=self._notes_open,
        )

    # ------------------------------------------------------------------ keys
    def _editing(self, tab: TabKey | None) -> bool:
        if isinstance(tab, ReviewKey):  # its note editor
            return self._notes_open and self._host.has_tab(tab)
        if not isinstance(tab, QuestionRef) or not self._host.has_tab(tab):
            return False
        spec = self._host.question(tab).spec
        return self._notes_open or self._host.draft(tab).cursor == custom_row(spec)

    def key_context_for(self, tab: Hashable | None) -> Context:
        """The keymap context of a key aimed at ``tab``: ``REPLY`` while its editor is active."""
        return Context.REPLY if self._editing(_aimed(tab)) else Context.PANEL

    def keypress(self, size: Size, key: str) -> str | None:
        """A key for the selected tab, resolved over :meth:`key_commands` (the layer resolves
        keys itself, with the tab they were aimed at)."""
        return handle(self._keymap, self.key_context, self, size, key)

    def key_commands(self) -> Mapping[Command, KeyHandler]:
        """The panel's commands (module docstring); a key any of them uses (paging aside)
        shows the cursor again on the next render."""
        return self._commands

    def _command_table(self) -> dict[Command, KeyHandler]:
        shown = self._shows_cursor
        table: dict[Command, KeyHandler] = {
            command: shown(self._host_command(value)) for command, value in PANEL_COMMANDS.items()
        }
        table.update({command: shown(self._jump_key(n)) for n, command in enumerate(ROW_JUMPS)})
        table[Command.PANEL_NOTES] = shown(self._notes_key)
        table[Command.REPLY_NEWLINE] = shown(self._newline_key)
        table[Command.REPLY_UP] = shown(self._reply_arrow(PanelCommand.UP))
        table[Command.REPLY_DOWN] = shown(self._reply_arrow(PanelCommand.DOWN))
        table[Command.PANEL_PAGE_UP] = self._page_key(-1)
        table[Command.PANEL_PAGE_DOWN] = self._page_key(1)
        return table

    def text_key(self, press: KeyPress) -> str | None:
        """A key no command took: typed into the active editor, else returned (unused)."""
        if press.context is not Context.REPLY:
            return press.key
        return self._shows_cursor(self._type_key)(press)

    def _shows_cursor(self, handler: KeyHandler) -> KeyHandler:
        def run(press: KeyPress) -> str | None:
            selected = self._host.selected
            scroll = self._scrolls.get(selected) if selected is not None else None
            unused = handler(press)
            if scroll is not None and unused is None:
                scroll.anchor = None  # a key acted: show the cursor again on the next render
            return unused

        return run

    def _tab_of(self, press: KeyPress) -> TabKey | None:
        return _aimed(self._host.selected if press.tab is None else press.tab)

    def _host_command(self, command: PanelCommand) -> KeyHandler:
        def run(press: KeyPress) -> str | None:
            self._host.command(command, self._tab_of(press))
            return None

        return run

    def _jump_key(self, row: int) -> KeyHandler:
        def jump(press: KeyPress) -> str | None:
            return None if self._jump(row, self._tab_of(press)) else press.key

        return jump

    def _notes_key(self, press: KeyPress) -> str | None:
        self._toggle_notes(self._tab_of(press))
        return None

    def _page_key(self, pages: int) -> KeyHandler:
        def page(press: KeyPress) -> str | None:
            if self._frame is not None:
                self._frame.page(press.cols, pages)
            return None

        return page

    def _type_key(self, press: KeyPress) -> str | None:
        return self._edit(
            press.cols, self._tab_of(press), lambda edit, size: edit.keypress(size, press.key)
        )

    def _newline_key(self, press: KeyPress) -> str | None:
        return self._edit(
            press.cols, self._tab_of(press), lambda edit, size: edit.insert_text("\n")
        )

    def _reply_arrow(self, command: PanelCommand) -> KeyHandler:
        """Up/Down move in the editor; from its first/last line, to the row above/below."""

        def arrow(press: KeyPress) -> str | None:
            if self._type_key(press) is None:
                return None
            self._host.command(command, self._tab_of(press))
            return None

        return arrow

    def _toggle_notes(self, tab: TabKey | None) -> None:
        """Open or close the notes: a question's own, or on Review the note for all."""
        if isinstance(tab, QuestionRef | ReviewKey) and tab == self._host.selected:
            self._notes_open = not self._notes_open
            self.refresh()

    def _jump(self, row: int, tab: TabKey | None) -> bool:
        """A digit moves the cursor to that row; it never answers. A digit with no row there
        (the Review tab, a short question) is not the panel's: it is returned (a stray key)."""
        if not isinstance(tab, QuestionRef) or tab != self._host.selected:
            return False
        if row >= row_count(self._host.question(tab).spec):
            return False
        self._host.set_cursor(row)
        return True

    def _edit(self, cols: int, tab: TabKey | None, action: EditAction) -> str | None:
        """Run ``action`` on the active editor (a key, a newline); push a change to the
        host's draft. Returns what the editor did not use."""
        if tab != self._host.selected:
            return None  # aimed at another tab's editor: the host cannot take it
        if isinstance(tab, ReviewKey):
            edit = self._group_note
        else:
            edit = self._notes if self._notes_open else self._reply
        before = (edit.edit_text, edit.edit_pos)
        width = self._frame.body.editor_cols(cols - 2 * BORDER_COLS) if self._frame else cols
        unused = action(edit, (width,))
        if (edit.edit_text, edit.edit_pos) != before:
            if edit is self._group_note:
                self._host.set_group_note(edit.edit_text)
            elif edit is self._notes:
                self._host.set_notes(edit.edit_text)
            else:
                self._host.set_custom_text(edit.edit_text, edit.edit_pos)
            self.refresh()
        return unused if isinstance(unused, str) else None


def _aimed(tab: Hashable | None) -> TabKey | None:
    """A tab the panel can act on (a question or Review), else ``None``."""
    return tab if isinstance(tab, QuestionRef | ReviewKey) else None
