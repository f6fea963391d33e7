"""The web bridge's request vocabulary: responses, HTTP errors, and the answer form.

Pure functions over bytes and :class:`~asks.core.model.QuestionSpec` (no I/O): a urlencoded
body becomes fields (known names only, no repeats but ``option``, ≤ ``MAX_FIELDS``), the
fields become a question ref and an :class:`~asks.core.model.Answer` with the panel's shapes.
Numbers are ASCII digits only. Every problem is an :class:`HttpError` with a short page text,
in the person's language (:mod:`asks.core.i18n`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final
from urllib.parse import parse_qsl

import attrs

from asks.core.i18n import _
from asks.core.model import (
    MAX_CUSTOM_TEXT,
    Answer,
    AnswerKind,
    QuestionRef,
    QuestionSpec,
    QuestionStatus,
)
from asks.sanitize import sanitize_text

MAX_BODY: Final = 64 * 1024  # bytes of one POST body
MAX_FIELDS: Final = 16  # form fields of one POST (4 options + 7 named fields, with room)
HTML: Final = "text/html; charset=utf-8"
FORM_FIELDS: Final = frozenset(
    {
        "csrf",
        "question",
        "incarnation",
        "action",
        "choice",
        "option",
        "custom",
        "notes",
        "group_note",
    }
)


@attrs.frozen
class Response:
    status: int
    body: bytes = b""
    content_type: str = HTML
    location: str | None = None


class HttpError(Exception):
    """Stop handling a request and answer ``status`` with a short page."""

    def __init__(self, status: int, title: str, text: str, *, back: bool = True) -> None:
        super().__init__(title)
        self.status, self.title, self.text, self.back = status, title, text, back


def too_large() -> HttpError:
    too_large = _("The form is over {size} KiB.").format(size=MAX_BODY // 1024)
    return HttpError(413, _("Too large"), too_large)


def forbidden(text: str | None = None) -> HttpError:
    """403 with no data: no question text, no link with the token."""
    return HttpError(403, _("Forbidden"), text or _("Forbidden."), back=False)


def parse_form(body: bytes) -> dict[str, list[str]]:
    try:
        pairs = parse_qsl(
            body.decode("utf-8"),
            keep_blank_values=True,
            strict_parsing=bool(body),
            encoding="utf-8",
            errors="strict",
            max_num_fields=MAX_FIELDS,
        )
    except ValueError as exc:  # UnicodeDecodeError too
        raise HttpError(400, _("Bad request"), _("The form could not be read.")) from exc
    fields: dict[str, list[str]] = {}
    for name, value in pairs:
        if name not in FORM_FIELDS:
            raise HttpError(
                400,
                _("Bad request"),
                _("Unexpected form field {name}.").format(name=repr(name[:40])),
            )
        fields.setdefault(name, []).append(value)
    for name, values in fields.items():
        if name != "option" and len(values) > 1:
            raise HttpError(
                400, _("Bad request"), _("The field {name} was sent twice.").format(name=repr(name))
            )
    return fields


def is_ascii_number(text: str) -> bool:
    """Only ``0``–``9``: ``str.isdigit`` also accepts ``²`` (which ``int`` refuses) and ``١``
    (which ``int`` reads as 1), so neither may reach ``int``."""
    return bool(text) and text.isascii() and text.isdigit()


def single(fields: Mapping[str, list[str]], name: str) -> str | None:
    values = fields.get(name)
    return values[0] if values else None


def question_ref(fields: Mapping[str, list[str]]) -> QuestionRef:
    qid, incarnation = single(fields, "question"), single(fields, "incarnation")
    if not qid or incarnation is None or not is_ascii_number(incarnation) or len(incarnation) > 18:
        raise HttpError(400, _("Bad request"), _("The form does not name a question."))
    return QuestionRef(qid, int(incarnation))


def text_field(fields: Mapping[str, list[str]], name: str, too_long: str) -> str:
    """The sanitised field ``name``; ``too_long`` (with ``{count}``) says it is too long."""
    text = sanitize_text(single(fields, name) or "").strip()
    if len(text) > MAX_CUSTOM_TEXT:
        raise HttpError(400, _("Too long"), too_long.format(count=MAX_CUSTOM_TEXT))
    return text


def option_index(spec: QuestionSpec, value: str) -> int:
    if not is_ascii_number(value) or int(value) >= len(spec.options):
        raise HttpError(400, _("Bad request"), _("That option does not exist."))
    return int(value)


def answer_from_form(spec: QuestionSpec, fields: Mapping[str, list[str]]) -> Answer:
    """The answer a submitted form gives, with the panel's shapes (see ``answer_problem``)."""
    long_answer = _("The answer is longer than {count} characters.")
    custom = text_field(fields, "custom", long_answer) or None
    notes = text_field(fields, "notes", _("The notes are longer than {count} characters."))
    choice, checked = single(fields, "choice"), fields.get("option", [])
    if spec.multi_select:
        if choice is not None:
            raise HttpError(400, _("Bad request"), _("This question takes checkboxes."))
        indices = sorted({option_index(spec, v) for v in checked})
        if not indices and custom is None:
            raise HttpError(400, _("Nothing chosen"), _("Check an option or type an answer."))
        return Answer(AnswerKind.MULTI, tuple(indices), custom, notes)
    if checked:
        raise HttpError(400, _("Bad request"), _("This question takes one answer."))
    if choice is None or choice == "custom":
        if custom is None:
            what = (
                _("Type an answer first.")
                if choice or not spec.options
                else _("Choose an option or type an answer.")
            )
            raise HttpError(400, _("Nothing chosen"), what)
        return Answer(AnswerKind.CUSTOM, (), custom, notes)
    index = option_index(spec, choice)
    if custom is not None:
        both = _(
            "You chose an option and also typed an answer: choose “{label}” to send the "
            "text, or clear it."
        )
        raise HttpError(400, _("Two answers"), both.format(label=_("Type something.")))
    return Answer(AnswerKind.OPTION, (index,), None, notes)


def group_note(fields: Mapping[str, list[str]]) -> str:
    """The person's note for all the questions of the group (sanitised; ``""`` for none)."""
    return text_field(fields, "group_note", _("The note is longer than {count} characters."))


def unknown_question(question_id: str) -> HttpError:
    text = _("There is no question {id}.").format(id=question_id)
    return HttpError(404, _("Unknown question"), text)


def conflict(status: QuestionStatus) -> HttpError:
    if status is QuestionStatus.WITHDRAWN:
        return HttpError(
            409,
            _("Withdrawn"),
            _("This question was withdrawn by the agent; your answer was not saved."),
        )
    return HttpError(
        409,
        _("Already answered"),
        _(
            "This question was already answered (in the terminal or another tab); your answer was "
            "not saved. Nothing was sent twice."
        ),
    )
