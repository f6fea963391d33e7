"""The Review tab of a multi-question wait: one card per question with its staged answer.

Each card shows the question's chip name and text and ``→ answer`` (with notes; the lines of
a multi-line answer or note each on their own row, indented under the first), ``(unanswered)``
or ``→ (already answered)`` for questions answered earlier; the summary under the cards says
what the confirm key does now (submit all, submit some and leave the rest pending, or nothing
until at least one is answered). Between the cards and the summary, the person's note for
all the questions: the panel's note editor while notes are open (Alt+N by default; the note is
the host's draft, saved with the answers when Review submits), else the note as text if one
was typed, and the notes for all saved with answers given elsewhere (the browser), each
saying where. A card of an answer given elsewhere shows its notes too. The tab has no cursor
row. It reads the host and never changes it.

All model text goes through :mod:`asks.sanitize` before it reaches a widget.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable

import urwid

from asks.core.i18n import N_, _, ngettext
from asks.core.model import QuestionRef
from asks.core.tabs import ReviewKey
from asks.host.panelport import PanelPort
from asks.host.waits import Wait
from asks.sanitize import sanitize_line, sanitize_text
from asks.widgets.keymap import Command, Context, Keymap, pretty_key
from asks.widgets.panel.body import Body
from asks.widgets.panel.markup import (
    OPTION_PREFIX,
    Markup,
    frozen,
    prefixed,
    text_widget,
    width_of,
)
from asks.widgets.panel.memo import Memo

GROUP_NOTE_CAPTION = N_("Note for all: ")  # translated where shown


class ReviewTab:
    """Builds the Review tab's heading and body; ``header(ref)`` gives a question's chip name."""

    def __init__(
        self,
        host: PanelPort,
        keymap: Keymap,
        memo: Memo,
        header: Callable[[QuestionRef], str],
        note_editor: urwid.Edit,
    ) -> None:
        self._host = host
        self._keymap = keymap
        self._memo = memo
        self._header = header
        self._note_editor = note_editor
        self._note_row = urwid.AttrMap(note_editor, "panel.editor")

    def build(self, tab: ReviewKey, *, notes_open: bool) -> tuple[urwid.Widget, Body, Hashable]:
        """The tab's heading, its body and its anchor; ``notes_open``: the note editor is open
        (then it is the body's cursor row)."""
        host = self._host
        wait = self._wait(tab)
        refs = wait.refs if wait is not None else ()
        rows: list[urwid.Widget] = []
        missing = 0
        for number, ref in enumerate(refs, start=1):
            row, unanswered = self._review_row(number, ref)
            rows.append(row)
            missing += unanswered
        answered = len(refs) - missing
        summary = self._review_summary(answered, missing)
        title = self._memo.text("review", ("panel.question", _("Review your answers")))
        note, editor = self._note(tab, notes_open, len(rows))
        saved = self._saved_notes(refs)
        after = (*note, *saved, self._memo.text("review", ("panel.hint", summary)))
        body = Body(
            lead=(),
            rows=tuple(rows),
            after=after,
            editor=editor,
            cursor=None if editor is None else len(rows),
        )
        return title, body, (tab, host.notice, notes_open)

    def _note(
        self, tab: ReviewKey, notes_open: bool, index: int
    ) -> tuple[tuple[urwid.Widget, ...], tuple[urwid.Edit, int, int] | None]:
        """The note row (editor or text, if any) and the editor's place in the body."""
        caption = ("panel.notes", _(GROUP_NOTE_CAPTION))
        width = width_of(caption[1])
        if notes_open:
            row = self._memo.get(("group note",), lambda: prefixed(caption, width, self._note_row))
            return (row,), (self._note_editor, index, width)
        note = self._host.group_note(tab.call_id)
        if not note.strip():
            return (), None
        text = text_widget(("panel.notes", sanitize_text(note)))
        return (self._memo.get(("group note", note), lambda: prefixed(caption, width, text)),), None

    def _saved_notes(self, refs: tuple[QuestionRef, ...]) -> tuple[urwid.Widget, ...]:
        """The notes for all saved already with some of ``refs`` (written in the browser with
        its answer), each with where it was written; the panel's own stays a draft until
        Review submits (:meth:`_note`)."""
        projection = self._host.projection
        caption = ("panel.notes", _(GROUP_NOTE_CAPTION))
        width = width_of(caption[1])
        rows: list[urwid.Widget] = []
        for note, given in projection.group_notes(refs):
            where = _where(projection.by_ref[given[0]].source)
            shown = sanitize_text(note) + (f" ({where})" if where else "")
            row = functools.partial(prefixed, caption, width, text_widget(("panel.notes", shown)))
            rows.append(self._memo.get(("saved note", shown), row))
        return tuple(rows)

    def _wait(self, tab: ReviewKey) -> Wait | None:
        return self._host.wait_of_call(tab.call_id)

    def _review_row(self, number: int, ref: QuestionRef) -> tuple[urwid.Widget, bool]:
        host = self._host
        if ref not in host.tabs:  # saved already, e.g. in the browser: what, and where
            return self._review_item(number, ref, ("panel.answer", self._saved(ref))), False
        staged = host.draft(ref).staged
        spec = host.question(ref).spec
        if staged is None:
            return self._review_item(number, ref, ("panel.unanswered", _("(unanswered)"))), True
        text = answer_text(staged.text(spec), staged.notes)
        return self._review_item(number, ref, ("panel.answer", text)), False

    def _saved(self, ref: QuestionRef) -> str:
        """``→ answer (where)`` of a question saved elsewhere, with the notes written there."""
        state = self._host.projection.by_ref[ref]
        answer = state.resolution.answer if state.resolution is not None else None
        text = _("Declined.") if answer is None else answer.text(state.question.spec)
        where = _where(state.source)
        return answer_text(f"{text} ({where})" if where else text, answer.notes if answer else "")

    def _review_item(self, number: int, ref: QuestionRef, answer: Markup) -> urwid.Widget:
        key = ("review", number, ref, frozen(answer))
        return self._memo.get(key, lambda: self._build_review_item(number, ref, answer))

    def _build_review_item(self, number: int, ref: QuestionRef, answer: Markup) -> urwid.Widget:
        spec = self._host.question(ref).spec
        head: list[Markup] = [
            ("panel.title", self._header(ref)),
            ("panel.option", f"  {sanitize_line(spec.question)}"),
        ]
        return prefixed(f"  {number}. ", OPTION_PREFIX, text_widget([*head, "\n", answer]))

    def _review_summary(self, answered: int, missing: int) -> str:
        key = self._keymap.key_in(Context.PANEL, Command.PANEL_CONFIRM)
        enter = "Enter" if key is None else pretty_key(key)
        if answered == 0:
            return _("Answer at least one question first, or decline or answer later.")
        if missing:
            submits = ngettext(
                "{key} submits {count} answer now;", "{key} submits {count} answers now;", answered
            ).format(key=enter, count=answered)
            stay = ngettext("{count} stays pending.", "{count} stay pending.", missing)
            return f"{submits} {stay.format(count=missing)}"
        return _("{key} submits all answers.").format(key=enter)


def _where(source: str | None) -> str | None:
    """Where an answer was given, for a note after it (``None``: in this panel)."""
    if source in (None, "panel"):
        return None
    if source == "web":
        return _("in the browser")
    if source == "line":
        return _("in line mode")
    return _("from {source}").format(source=sanitize_line(source))


ANSWER_MARK = "→ "


def answer_text(answer: str, notes: str = "") -> str:
    """``→ answer  (notes: …)``, sanitised. A multi-line answer or note keeps its lines (not
    joined into one): every further line is indented under the first, and the notes start a
    row of their own."""
    indent = "\n" + " " * len(ANSWER_MARK)
    answer, notes = sanitize_text(answer).strip("\n"), sanitize_text(notes).strip("\n")
    text = ANSWER_MARK + answer.replace("\n", indent)
    if notes:
        gap = indent if "\n" in answer + notes else "  "
        text += gap + _("(notes: {notes})").format(notes=notes.replace("\n", indent))
    return text
