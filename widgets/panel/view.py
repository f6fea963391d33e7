"""The question panel: an urwid view of a :class:`~asks.host.host.QuestionHost`.

:class:`QuestionPanel` renders the host's state and turns keys into host commands; it keeps no
policy of its own (DESIGN §2, §5). The app subscribes :meth:`QuestionPanel.refresh` to the host
(``host.subscribe(panel.refresh)``); every render reads only what the last refresh built.

What it shows, by ``host.mode`` and focus:

* **expanded** — a bordered :class:`~asks.widgets.panel.frame.Frame`: the tab bar
  (:mod:`~asks.widgets.panel.tabbar`), the question and its rows
  (:mod:`~asks.widgets.panel.rows`) or the Review tab (:mod:`~asks.widgets.panel.review`), and
  the notice and key hints (:mod:`~asks.widgets.panel.footer`). The border is solid while the
  panel has the keyboard, dotted while it does not, and carries the warning attribute and
  ``⚠ required`` while a blocking question is pending. When taller than ``max_rows`` the middle
  scrolls (see :mod:`~asks.widgets.panel.frame`).
* **collapsed** — one dim hint row. **paused** — a two-row pending card.

The panel owns the view state the host does not: the reply and notes editors, whether notes
are open, and each tab's scroll position. Widgets are reused across refreshes when their inputs
did not change (:mod:`~asks.widgets.panel.memo`).

Keys: the layer widget (:mod:`asks.widgets.layer`) decides that a key is the panel's (focus,
typing guard) and calls :meth:`QuestionPanel.keypress_for` with the tab it was aimed at. When
the cursor is on ``Type something.`` or the notes editor is open, the key context is ``REPLY``:
its bindings run first (Enter confirms, Alt+Enter inserts a newline), then the editor gets the
key, and keys it does not use fall back to the ``PANEL`` context. Otherwise ``PANEL`` bindings
become ``host.command_nowait(PanelCommand, tab)``; digits 1–6 only move the cursor to that row
(a digit with no such row is not used). Unhandled keys are returned, as urwid expects (the
layer treats a returned printable as a stray key, focus rule 9a).

All model text goes through :mod:`asks.sanitize` before it reaches a widget.
"""

from __future__ import annotations

from collections.abc import Hashable

import urwid

from asks.core.drafts import Draft, custom_row, row_count
from asks.core.i18n import N_, _, language, ngettext
from asks.core.model import QuestionRef
from asks.core.tabs import ReviewKey, TabKey
from asks.host.commands import PanelMode
from asks.host.ports import PanelPort
from asks.sanitize import sanitize_line
from asks.widgets.keymap import PANEL_COMMANDS, ROW_JUMPS, Command, Context, Keymap
from asks.widgets.panel.body import Body
from asks.widgets.panel.footer import Footer, localized_hints
from asks.widgets.panel.frame import DOTTED, SOLID, Border, Frame, Scroll
from asks.widgets.panel.markup import (
    BORDER_COLS,
    DEFAULT_MAX_ROWS,
    PLACEHOLDER,
    Markup,
    Size,
    text_widget,
    width_of,
)
from asks.widgets.panel.memo import Memo
from asks.widgets.panel.review import ReviewTab
from asks.widgets.panel.rows import QuestionRows
from asks.widgets.panel.tabbar import ChipState, TabBar

COMPACT_ROWS = 12  # a panel shorter than this gets one row of key hints


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
        self._question_rows = QuestionRows(self._memo, self._reply, self._notes)
        self._review = ReviewTab(host, keymap, self._memo, self._header, self._group_note)
        self._footer = Footer(host, keymap, self._memo)
        self._shown: TabKey | None = None
        self._notes_open = False
        self._scrolls: dict[TabKey, Scroll] = {}
        self._headers: dict[QuestionRef, str] = {}
        self._names: tuple[tuple[TabKey, ...], list[str], list[int], str] = ((), [], [], "")
        self._frame: Frame | None = None
        self._counted: tuple[tuple[TabKey, ...], int] = ((), 0)
        self._pruned_for: tuple[TabKey, ...] | None = None
        self._index: tuple[tuple[TabKey, ...], dict[TabKey, int]] = ((), {})
        self._bar: tuple[tuple[TabKey, ...], Hashable, TabKey | None, TabBar | None] = (
            (),
            None,
            None,
            None,
        )
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
        return Context.REPLY if self._editing(self._host.selected) else Context.PANEL

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
        elif host.mode is PanelMode.COLLAPSED:
            self._w = self._collapsed()
        elif host.mode is PanelMode.PAUSED and not host.focus.panel_focused:
            self._w = self._paused()
        else:
            self._frame = self._expanded()
            self._w = self._frame

    def _sync_editors(self) -> None:
        """Load the editors from the selected tab's draft when the tab or the draft changed."""
        tab = self._host.selected
        if self._pruned_for is not self._host.tabs:  # per tab list, not per key
            self._pruned_for, index = self._host.tabs, self._tab_index(self._host.tabs)
            self._scrolls = {t: s for t, s in self._scrolls.items() if t in index}
        self._question_rows.prune(self._host.tabs)
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
        if self._counted[0] is not tabs:
            self._counted = (tabs, sum(isinstance(t, QuestionRef) for t in tabs))
        return self._counted[1]

    def _collapsed(self) -> urwid.Widget:
        count = self._pending_count()
        pending = ngettext("{count} question pending", "{count} questions pending", count)
        keymap = self._keymap
        hint = localized_hints(
            keymap, Context.CHAT, [Command.COLLAPSE], {Command.COLLAPSE: N_("expand")}
        )
        hint = hint or localized_hints(
            keymap, Context.CHAT, [Command.FOCUS_TOGGLE], {Command.FOCUS_TOGGLE: N_("open")}
        )
        line = f"▸ {pending.format(count=count)} · {hint}"
        return text_widget(("panel.dim", line), "ellipsis")

    def _paused(self) -> urwid.Widget:
        refs = [t for t in self._host.tabs if isinstance(t, QuestionRef)]
        headers = " · ".join(sanitize_line(self._host.question(r).spec.header) for r in refs[:3])
        more = f" · +{len(refs) - 3}" if len(refs) > 3 else ""
        pending = ngettext("{count} question pending:", "{count} questions pending:", len(refs))
        hint = localized_hints(
            self._keymap,
            Context.CHAT,
            [Command.FOCUS_TOGGLE, Command.COLLAPSE],
            {Command.FOCUS_TOGGLE: N_("to answer")},
        )
        return urwid.Pile(
            [
                text_widget(
                    [
                        ("panel.card", f"‖ {pending.format(count=len(refs))} "),
                        ("panel.title", headers + more),
                    ],
                    "ellipsis",
                ),
                text_widget(("panel.hint", f"  {hint}"), "ellipsis"),
            ]
        )

    # ------------------------------------------------------------------ expanded
    def _expanded(self) -> Frame:
        host = self._host
        tab = host.selected
        assert tab is not None
        if isinstance(tab, ReviewKey):
            question, body, anchor = self._review.build(tab, notes_open=self._notes_open)
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

        Per key this is O(1) in the number of tabs: the chips are re-read only when the tab
        list (a new tuple) or the host's chip revision changed, and the bar is kept while
        those and the selection are the same."""
        host = self._host
        inputs = (host.chips_revision(), language())
        tabs, selected = host.tabs, host.selected
        kept_tabs, kept_inputs, kept_selected, bar = self._bar
        # equal, not identical: the host may hold an equal ReviewKey built elsewhere
        index = self._tab_index(tabs).get(selected, 0) if selected is not None else 0
        if bar is not None and kept_tabs is tabs and kept_inputs == inputs:
            if kept_selected != selected:
                bar = bar.with_selected(index)
        else:
            names, widths = self._chip_names(tabs)
            bar = TabBar(names, widths, tuple(self._chip_state(tab) for tab in tabs), index)
        self._bar = (tabs, inputs, selected, bar)
        return bar

    def _tab_index(self, tabs: tuple[TabKey, ...]) -> dict[TabKey, int]:
        """Position of each tab (first of equal keys), kept while the tab list is the same."""
        if self._index[0] is not tabs:
            index: dict[TabKey, int] = {}
            for i, tab in enumerate(tabs):
                index.setdefault(tab, i)
            self._index = (tabs, index)
        return self._index[1]

    def _chip_state(self, tab: TabKey) -> ChipState:
        host = self._host
        if isinstance(tab, QuestionRef) and host.draft(tab).staged is not None:
            return ChipState.STAGED
        return ChipState.REQUIRED if host.is_required(tab) else ChipState.PLAIN

    def _chip_names(self, tabs: tuple[TabKey, ...]) -> tuple[list[str], list[int]]:
        """The chip names of ``tabs`` and their widths (kept while the tabs are the same)."""
        if self._names[0] is not tabs or self._names[3] != language():
            names = _numbered(
                [_("Review") if isinstance(t, ReviewKey) else self._header(t) for t in tabs]
            )
            self._names = (tabs, names, [width_of(name) for name in names], language())
        return self._names[1], self._names[2]

    def _header(self, ref: QuestionRef) -> str:
        """The sanitised chip text of a question (cached: a question never changes)."""
        header = self._headers.get(ref)
        if header is None:
            question = self._host.question(ref)
            header = sanitize_line(question.spec.header) or "?"
            if question.source:  # several agents share the host: say who asked
                header = f"{header} ({sanitize_line(question.source)})"
            self._headers[ref] = header
        return header

    def _question(self, ref: QuestionRef) -> tuple[urwid.Widget, Body, Hashable]:
        host = self._host
        return self._question_rows.build(
            ref,
            host.question(ref),
            host.draft(ref),
            active=host.focus.keys_to_panel,
            notes_open=self._notes_open,
        )

    # ------------------------------------------------------------------ keys
    def _editing(self, tab: TabKey | None) -> bool:
        if isinstance(tab, ReviewKey):  # its note editor
            return self._notes_open and tab in self._tab_index(self._host.tabs)
        if not isinstance(tab, QuestionRef) or tab not in self._tab_index(self._host.tabs):
            return False
        spec = self._host.question(tab).spec
        return self._notes_open or self._host.draft(tab).cursor == custom_row(spec)

    def keypress(self, size: Size, key: str) -> str | None:
        """A key for the selected tab (the layer normally calls :meth:`keypress_for`)."""
        return self.keypress_for(size, key, self._host.selected)

    def keypress_for(self, size: Size, key: str, tab: Hashable | None) -> str | None:
        """Handle ``key`` aimed at ``tab`` (see module docstring); return it if unused."""
        host = self._host
        aimed = tab if isinstance(tab, QuestionRef | ReviewKey) else None
        cols = size[0] if size else 80
        scroll = self._scrolls.get(host.selected) if host.selected is not None else None
        if self._editing(aimed):
            unused = self._reply_key(cols, key, aimed)
        else:
            unused = self._panel_key(cols, key, aimed)
        if scroll is not None and unused is None and key not in self._paging_keys():
            scroll.anchor = None  # a key acted: show the cursor again on the next render
        return unused

    def _paging_keys(self) -> tuple[str, ...]:
        keymap = self._keymap
        return keymap.keys_for(Command.PANEL_PAGE_UP) + keymap.keys_for(Command.PANEL_PAGE_DOWN)

    def _panel_key(self, cols: int, key: str, tab: TabKey | None) -> str | None:
        command = self._keymap.command_for(Context.PANEL, key)
        if command is None or not self._run(command, cols, tab):
            return key
        return None

    def _reply_key(self, cols: int, key: str, tab: TabKey | None) -> str | None:
        command = self._keymap.command_for(Context.REPLY, key)
        if command is Command.REPLY_NEWLINE:
            return self._edit(cols, "enter", tab)
        if command is not None and self._run(command, cols, tab):
            return None
        unused = self._edit(cols, key, tab)
        if unused is None:
            return None
        return self._panel_key(cols, unused, tab)

    def _run(self, command: Command, cols: int, tab: TabKey | None) -> bool:
        """Run a panel command or widget action; ``False`` if it is not the panel's."""
        if command in PANEL_COMMANDS:
            self._host.command_nowait(PANEL_COMMANDS[command], tab)
        elif command is Command.PANEL_NOTES:
            self._toggle_notes(tab)
        elif command in (Command.PANEL_PAGE_UP, Command.PANEL_PAGE_DOWN):
            if self._frame is not None:
                self._frame.page(cols, -1 if command is Command.PANEL_PAGE_UP else 1)
        elif command in ROW_JUMPS:
            return self._jump(ROW_JUMPS.index(command), tab)
        else:
            return False
        return True

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
        self._host.set_cursor_nowait(row)
        return True

    def _edit(self, cols: int, key: str, tab: TabKey | None) -> str | None:
        """Give ``key`` to the active editor; push a change to the host's draft."""
        if tab != self._host.selected:
            return None  # aimed at another tab's editor: the host cannot take it (see NOTES)
        if isinstance(tab, ReviewKey):
            edit = self._group_note
        else:
            edit = self._notes if self._notes_open else self._reply
        before = (edit.edit_text, edit.edit_pos)
        width = self._frame.body.editor_cols(cols - 2 * BORDER_COLS) if self._frame else cols
        unused = edit.keypress((width,), key)
        if (edit.edit_text, edit.edit_pos) != before:
            if edit is self._group_note:
                self._host.set_group_note_nowait(edit.edit_text)
            elif edit is self._notes:
                self._host.set_notes_nowait(edit.edit_text)
            else:
                self._host.set_custom_text_nowait(edit.edit_text, edit.edit_pos)
            self.refresh()
        return unused


def _numbered(names: list[str]) -> list[str]:
    """Repeated chip names get a number from their second use: ``Versioning``, ``Versioning 2``."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} {seen[name]}")
    return out
