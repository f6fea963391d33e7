"""The shapes of an answer a question accepts (shared by the panel, web and line mode)."""

from __future__ import annotations

from asks.core.drafts import offers_custom
from asks.core.i18n import _
from asks.core.model import MAX_CUSTOM_TEXT, Answer, AnswerKind, QuestionSpec


def answer_problem(spec: QuestionSpec, answer: Answer) -> str | None:
    """Why ``answer`` cannot answer ``spec`` (a sentence for a person, translated), or ``None``.

    The shapes the panel produces: ``option`` = exactly one option of a single-select question;
    ``multi`` = distinct options (sorted) of a multi-select question and/or custom text, at least
    one of them; ``custom`` = non-empty text for a single-select or free-text question. Custom
    text and notes are at most ``MAX_CUSTOM_TEXT`` characters. A question that is not
    ``custom`` (no ``Type something.`` row) takes no typed text at all.
    """
    indices = answer.option_indices
    if any(i < 0 or i >= len(spec.options) for i in indices):
        return _("That option does not exist.")
    if answer.custom_text is not None and len(answer.custom_text) > MAX_CUSTOM_TEXT:
        return _("The answer is longer than {count} characters.").format(count=MAX_CUSTOM_TEXT)
    if len(answer.notes) > MAX_CUSTOM_TEXT:
        return _("The notes are longer than {count} characters.").format(count=MAX_CUSTOM_TEXT)
    has_text = bool(answer.custom_text and answer.custom_text.strip())
    if has_text and not offers_custom(spec):
        return _("This question takes only its options.")
    match answer.kind:
        case AnswerKind.OPTION if spec.multi_select or len(indices) != 1:
            return _("Choose exactly one option.")
        case AnswerKind.MULTI if not spec.multi_select:
            return _("This question takes one answer.")
        case AnswerKind.MULTI if list(indices) != sorted(set(indices)) or not (indices or has_text):
            return _("Check at least one option or type an answer.")
        case AnswerKind.CUSTOM if spec.multi_select or indices or not has_text:
            return _("Type an answer first.")
    return None
