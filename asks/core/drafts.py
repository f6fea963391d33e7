"""Drafts: what the person has selected or typed for one question incarnation, not yet saved.

A :class:`Draft` is a frozen value; every edit returns a new one. The rows of a question are
its options ``0..n-1``, then the ``Type something.`` row (``n``; left out when the question
is not ``custom``), then for multi-select the ``Next`` row (the last). Cursor movement wraps.
:func:`answer_at_cursor` turns a draft into an :class:`~asks.core.model.Answer` (or says why
it cannot yet).

What survives a crash or kill is a :class:`SavedDrafts`: the chat line
(:class:`ChatLine`, text and caret; a REPL puts its unread sent messages in front,
:func:`with_unsent`) and every draft worth keeping (:class:`SavedDraft`: any
draft but the empty one), keyed by incarnation. It is never an answer: the policy that brings
it back is :mod:`asks.core.restore`, the file it lives in :mod:`asks.store.draftfile`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

import attrs

from asks.core.i18n import _
from asks.core.model import Answer, AnswerKind, QuestionRef, QuestionSpec


@attrs.frozen
class Draft:
    """Unsaved state of one question incarnation (see module docstring)."""

    cursor: int = 0
    checked: frozenset[int] = frozenset()
    custom_text: str = ""
    caret: int = 0
    notes: str = ""
    staged: Answer | None = None  # collected for a multi-question wait, saved at Review


EMPTY_DRAFT: Final = Draft()  # frozen: one shared value for "nothing typed yet"


@attrs.frozen
class ChatLine:
    """What the chat editor holds and where its caret is (unsent: it is not a message)."""

    text: str = ""
    caret: int = 0


NO_CHAT: Final = ChatLine()


def with_unsent(unread: Iterable[str], line: ChatLine) -> ChatLine:
    """The chat line to keep, with the messages sent but not read by the agent yet (a chat
    REPL's queue) in front of it, one per line: what a crash or kill must not lose.
    Restored, they come back as the chat editor's text, never sent again by themselves."""
    head = "\n".join(unread)
    if not head:
        return line
    if not line.text:
        return ChatLine(head, len(head))
    return ChatLine(f"{head}\n{line.text}", len(head) + 1 + line.caret)


@attrs.frozen
class SavedDraft:
    """One question incarnation's draft as the drafts file keeps it."""

    ref: QuestionRef
    draft: Draft


@attrs.frozen
class SavedDrafts:
    """Everything typed and not sent or saved: the chat line and the drafts worth keeping."""

    chat: ChatLine = NO_CHAT
    questions: tuple[SavedDraft, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.chat.text and not self.questions


class DraftBook:
    """The drafts of one host, keyed by question incarnation (a new incarnation starts empty),
    and the note for all questions of a multi-question wait, keyed by its tool call (typed on
    its Review tab, saved with the answers when Review submits).

    ``revision`` grows at every edit, drop and restore of a question's draft: an O(1) "the
    drafts may have changed" for whoever saves them (the drafts file keeper compares it; it
    never reads the drafts on the key path). Group notes are not kept in the drafts file:
    they belong to a live wait's Review tab, which a resume never brings back.
    """

    # A plain class, not attrs: building one is ~0.5 M instructions of every launch.
    __slots__ = ("_drafts", "_group_notes", "revision", "staged_revision")

    def __init__(self) -> None:
        self._drafts: dict[QuestionRef, Draft] = {}
        self._group_notes: dict[str, str] = {}
        self.staged_revision = 0  # grows whenever any draft's ``staged`` changes (views key on it)
        self.revision = 0

    def get(self, ref: QuestionRef) -> Draft:
        return self._drafts.get(ref, EMPTY_DRAFT)

    def edit(self, ref: QuestionRef, change: Callable[[Draft], Draft]) -> Draft:
        before = self.get(ref)
        draft = self._drafts[ref] = change(before)
        self.revision += 1
        if draft.staged != before.staged:
            self.staged_revision += 1
        return draft

    def group_note(self, call_id: str) -> str:
        return self._group_notes.get(call_id, "")

    def set_group_note(self, call_id: str, note: str) -> None:
        if note:
            self._group_notes[call_id] = note
        else:
            self._group_notes.pop(call_id, None)

    def drop(self, ref: QuestionRef) -> None:
        """The question was saved or withdrawn: its draft has no further use."""
        dropped = self._drafts.pop(ref, None)
        if dropped is not None:
            self.revision += 1
            if dropped.staged is not None:
                self.staged_revision += 1

    def saved(self) -> tuple[SavedDraft, ...]:
        """The drafts worth keeping (all but the empty draft), in the order they began."""
        return tuple(SavedDraft(r, d) for r, d in self._drafts.items() if d != EMPTY_DRAFT)

    def restore(self, drafts: Iterable[SavedDraft]) -> None:
        """Put back drafts from an earlier run; a question that has a draft here keeps it
        (what is in memory is newer than any file)."""
        for saved in drafts:
            if saved.ref not in self._drafts:
                self._drafts[saved.ref] = saved.draft
                self.revision += 1
                if saved.draft.staged is not None:
                    self.staged_revision += 1


def offers_custom(spec: QuestionSpec) -> bool:
    """Whether the question has a ``Type something.`` row (a free-text question always has)."""
    return spec.custom or not spec.options


def row_count(spec: QuestionSpec) -> int:
    return len(spec.options) + offers_custom(spec) + spec.multi_select


def custom_row(spec: QuestionSpec) -> int | None:
    """The ``Type something.`` row, right after the options; None when it is left out."""
    return len(spec.options) if offers_custom(spec) else None


def next_row(spec: QuestionSpec) -> int | None:
    """The multi-select ``Next`` row, the last one; None for a single choice."""
    return row_count(spec) - 1 if spec.multi_select else None


def move(draft: Draft, spec: QuestionSpec, delta: int) -> Draft:
    """Move the cursor by ``delta`` rows, wrapping."""
    return attrs.evolve(draft, cursor=(draft.cursor + delta) % row_count(spec))


def toggle(draft: Draft, spec: QuestionSpec) -> Draft:
    """Check or uncheck the option under the cursor (multi-select only)."""
    if not spec.multi_select or draft.cursor >= len(spec.options):
        return draft
    return attrs.evolve(draft, checked=draft.checked ^ {draft.cursor})


def _custom(draft: Draft) -> str | None:
    text = draft.custom_text.strip()
    return text or None


def answer_at_cursor(draft: Draft, spec: QuestionSpec) -> Answer | str:
    """The answer Enter would give at the cursor, or a notice saying what is missing.

    Multi-select option rows are not answers (Enter toggles them); the caller handles that.
    """
    notes = draft.notes.strip()
    if spec.multi_select:
        custom = _custom(draft) if offers_custom(spec) else None
        if not draft.checked and custom is None:
            return _("Check at least one option or type an answer, then choose {next}.").format(
                next=_("Next")
            )
        return Answer(AnswerKind.MULTI, tuple(sorted(draft.checked)), custom, notes)
    if draft.cursor < len(spec.options):
        return Answer(AnswerKind.OPTION, (draft.cursor,), None, notes)
    custom = _custom(draft)
    if custom is None:
        return _("Type an answer first.")
    return Answer(AnswerKind.CUSTOM, (), custom, notes)
