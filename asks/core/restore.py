"""Bringing drafts back after a crash or kill: which ones, in what shape, and what to say.

A :class:`~asks.core.drafts.SavedDrafts` read at resume is data from disk, never an answer.
:func:`plan_restore` decides what of it comes back:

* a draft comes back only for a question **still pending with the same incarnation**
  (``QuestionRef(id, incarnation)``); one whose question was answered, declined or withdrawn
  meanwhile, or that a new incarnation replaced, is dropped (counted in ``dropped``);
* a draft that comes back is fitted to its question (:func:`fit_draft`): the cursor and the
  checks to rows that exist, the caret into its text, a staged answer only if it is one the
  question accepts; its text is sanitized (:func:`~asks.sanitize.sanitize_text`), as any
  text read from disk is before it reaches the terminal;
* the chat line comes back only when there is a chat editor to put it in and it has text.

Restoring saves and sends nothing: the drafts go back into the host's draft book and the chat
editor, and the person answers them with the normal keys. :attr:`Restored.notice` is the
sentence that tells the person what came back.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from asks.core.answers import answer_problem
from asks.core.drafts import ChatLine, Draft, SavedDraft, SavedDrafts, row_count
from asks.core.i18n import _, ngettext
from asks.core.model import QuestionRef, QuestionSpec
from asks.sanitize import sanitize_text


@attrs.frozen
class Restored:
    """What a resume brought back from the drafts file; empty when there was nothing.

    Drafts come back only for questions still pending with the same incarnation, clipped to
    what the question accepts; nothing is sent or saved. ``chat`` is the chat line to put
    back into the editor; ``dropped`` counts drafts of questions no longer pending;
    ``warning`` says why nothing came back when the file could not be read. :attr:`notice`
    is the sentence to show the person.
    """

    drafts: tuple[SavedDraft, ...] = ()
    chat: ChatLine | None = None  # put back into the chat editor
    dropped: int = 0  # drafts of questions no longer pending with that incarnation
    warning: str | None = None  # the drafts file could not be read: nothing came back

    @property
    def refs(self) -> tuple[QuestionRef, ...]:
        """The questions whose drafts came back."""
        return tuple(saved.ref for saved in self.drafts)

    @property
    def notice(self) -> str | None:
        """``Restored your unsent drafts: the chat line and 1 answer — nothing was sent.``,
        the warning, or ``None`` when nothing came back."""
        if self.warning is not None:
            return self.warning
        count = len(self.drafts)
        if not count:
            return _("Restored your unsent chat line — nothing was sent.") if self.chat else None
        answers = ngettext("{count} answer", "{count} answers", count).format(count=count)
        if self.chat is not None:
            return _(
                "Restored your unsent drafts: the chat line and {answers} — nothing was sent."
            ).format(answers=answers)
        return _("Restored your unsent drafts: {answers} — nothing was sent.").format(
            answers=answers
        )


def fit_draft(draft: Draft, spec: QuestionSpec) -> Draft:
    """``draft`` made valid for ``spec`` (module docstring); a valid draft of clean text is
    returned unchanged."""
    custom, notes = sanitize_text(draft.custom_text), sanitize_text(draft.notes)
    staged = draft.staged
    if staged is not None:
        text = None if staged.custom_text is None else sanitize_text(staged.custom_text)
        staged = attrs.evolve(staged, custom_text=text, notes=sanitize_text(staged.notes))
        if answer_problem(spec, staged) is not None:
            staged = None
    options = len(spec.options) if spec.multi_select else 0
    return Draft(
        cursor=min(max(draft.cursor, 0), row_count(spec) - 1),
        checked=frozenset(i for i in draft.checked if 0 <= i < options),
        custom_text=custom,
        caret=min(max(draft.caret, 0), len(custom)),
        notes=notes,
        staged=staged,
    )


def fit_chat(chat: ChatLine) -> ChatLine:
    text = sanitize_text(chat.text)
    return ChatLine(text, min(max(chat.caret, 0), len(text)))


def plan_restore(
    saved: SavedDrafts,
    pending_spec: Callable[[QuestionRef], QuestionSpec | None],
    *,
    chat_editor: bool,
) -> Restored:
    """What of ``saved`` comes back (module docstring). ``pending_spec(ref)`` is the question
    of a pending incarnation, ``None`` for one that is not pending (any more)."""
    drafts, dropped = [], 0
    for item in saved.questions:
        spec = pending_spec(item.ref)
        if spec is None:
            dropped += 1
        else:
            drafts.append(SavedDraft(item.ref, fit_draft(item.draft, spec)))
    chat = fit_chat(saved.chat) if chat_editor and saved.chat.text else None
    return Restored(tuple(drafts), chat, dropped)
